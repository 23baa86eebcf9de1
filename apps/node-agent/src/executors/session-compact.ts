import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { claudePromptBox } from './screen.ts';

export type CompactResult = { ok: true; detail: string } | { ok: false; reason: string; typed: boolean };

/**
 * The CLI's own `/compact`, typed as the command (keys, not a paste: a pasted `/` is text) into an
 * idle CLI. Resolved by what the journal records: Claude a `<command-name>/compact</command-name>`
 * user record and its `<local-command-stdout>` line (its own words, e.g. "Compacted" or why not);
 * Codex an `item_completed` ContextCompaction (both seen with the pinned CLIs). Nothing in the journal
 * within `ms`: not confirmed, never typed again.
 */
export async function compactCli(o: {
  tmux: Tmux;
  paneId: string;
  executor: 'claude' | 'codex';
  journal: string;
  baseline: number;
  ms: number;
}): Promise<CompactResult> {
  await o.tmux.sendKeys(o.paneId, ['-l', '/compact']);
  // Enter only once the input line holds exactly the command (a popup listing it is not enough:
  // Enter there would pick whatever the popup highlights), and not right after the keys: Codex
  // turns an Enter that follows input too closely into a newline.
  let typed = false;
  for (let i = 0; i < 60 && !typed; i++) {
    typed = compactTyped(o.executor, await o.tmux.capture(o.paneId));
    if (!typed) await sleep(50);
  }
  if (!typed) {
    await o.tmux.sendKeys(o.paneId, ['C-u']);
    return { ok: false, reason: 'the CLI did not show /compact in its input; cleared, nothing run', typed: false };
  }
  await sleep(150);
  await o.tmux.sendKeys(o.paneId, ['Enter']);
  const deadline = Date.now() + o.ms;
  while (Date.now() < deadline) {
    const added = await readFrom(o.journal, o.baseline);
    const found = compactEvidence(o.executor, added);
    // The CLI ran the command: "Compacted…", or its own reason not to ("Not enough messages to compact").
    if (found !== null) return /^compacted/i.test(found) ? { ok: true, detail: found } : { ok: false, reason: found, typed: false };
    await sleep(250);
  }
  return { ok: false, reason: 'the CLI did not record a compaction in time', typed: true };
}

/** The journal's bytes from `offset` on (a compaction adds a few records). */
async function readFrom(path: string, offset: number): Promise<string> {
  const h = await open(path, 'r').catch(() => null);
  if (!h) return '';
  try {
    const size = (await h.stat()).size;
    if (size <= offset) return '';
    const buf = Buffer.alloc(Math.min(size - offset, 4 * 1024 * 1024));
    await h.read(buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    await h.close();
  }
}

/** What the journal says of a `/compact` (null: nothing yet); Claude's own output line, ANSI removed. */
export function compactEvidence(executor: 'claude' | 'codex', added: string): string | null {
  if (executor === 'codex') return /"type":"ContextCompaction"/.test(added) ? 'Compacted' : null;
  const at = added.indexOf('<command-name>/compact</command-name>');
  if (at < 0) return null;
  const out = /<local-command-stdout>(.*?)<\/local-command-stdout>/.exec(added.slice(at));
  if (!out?.[1]) return null;
  let line = out[1];
  try {
    line = JSON.parse(`"${out[1]}"`) as string;
  } catch {
    // kept as written
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes in Claude's output line
  const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.trim().slice(0, 300) || 'Compacted';
}

/** The CLI's input line holds exactly `/compact` (Claude's box, Codex's `›` composer line). */
export function compactTyped(executor: 'claude' | 'codex', screen: string): boolean {
  if (executor === 'claude') return claudePromptBox(screen) === '/compact';
  return screen.split('\n').some((l) => /^\s*›\s\/compact\s*$/.test(l));
}
