// Screen reading is the weakest evidence Bria uses: only for "is the TUI at its prompt" and "is it
// waiting on a question". Everything about messages and turns comes from the journals.

/** Both TUIs show this footer when their composer is idle and empty. */
export function isAtPrompt(screen: string): boolean {
  // Claude started in another permission mode than `default` names that mode in the footer instead
  // (`⏵⏵ accept edits on (shift+tab to cycle)`, `⏸ plan mode on …`, `⏵⏵ bypass permissions on …`, 2.1.197).
  return /\? for shortcuts|\(shift\+tab to cycle\)/.test(screen);
}

const QUESTION_PATTERNS = [
  /trust (this|the files in this) folder/i,
  /is this a project you created or one you trust/i,
  /do you want to use this api key/i,
  /do you want to (proceed|make this edit|create|allow)/i,
  /bypass permissions mode/i,
  /sign in with chatgpt/i,
  /working directory/i,
  /allow .* to run/i,
  /^\s*[❯›>]\s*1\.\s/m,
];

/**
 * A folder-trust dialog of either CLI at its start, with its first choice ("Yes, I trust this
 * folder" / "Trust and continue") highlighted, so that Enter trusts the folder (docs/cli-facts.md,
 * "Dialogs on the screen"). Only this dialog is ever answered by Bria, and only on the user's word.
 */
export function folderTrustDialog(screen: string): boolean {
  const claude = /trust this folder/i.test(screen) && /^\s*❯\s*1\.\s*Yes, I trust this folder/m.test(screen);
  const codex = /Trust this folder\?/i.test(screen) && /^\s*›\s*1\.\s*Trust and continue/m.test(screen);
  return claude || codex;
}

/** The text of a dialog the CLI is blocked on, or null. */
export function detectBlockingPrompt(screen: string): string | null {
  if (!QUESTION_PATTERNS.some((re) => re.test(screen))) return null;
  const lines = screen
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  return lines.slice(-25).join('\n');
}

/** Codex `/status` prints `Session: <uuid>`; the last one on screen is the current one. */
export function sessionIdFromStatus(screen: string): string | null {
  const all = [...screen.matchAll(/Session:\s+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/g)];
  return all.length > 0 ? all[all.length - 1]![1]! : null;
}

/**
 * The text in Claude's input box (the lines from `❯` down to the next rule); '' when empty, null
 * when no box is on screen.
 */
export function claudePromptBox(screen: string): string | null {
  const lines = screen.split('\n');
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    // Claude draws its box as `❯` + NO-BREAK SPACE; prompts in the transcript use a plain space.
    if (/^❯(\u00a0|$)/.test(lines[i]!)) {
      start = i;
      break;
    }
  }
  if (start < 0) return null;
  const out: string[] = [lines[start]!.slice(1)];
  for (let i = start + 1; i < lines.length && !/^─{3,}/.test(lines[i]!); i++) out.push(lines[i]!);
  return out
    .map((l) => l.trim())
    .join('\n')
    .trim();
}

/** What Codex's composer (the last `› ` line on screen) holds, trimmed; null when none is drawn. */
export function codexComposer(screen: string): string | null {
  const lines = screen.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if (/^›(\s|$)/.test(lines[i]!)) return lines[i]!.slice(1).trim();
  return null;
}
