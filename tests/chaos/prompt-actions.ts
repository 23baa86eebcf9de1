// The user's side of permission requests and start dialogs in a chaos run: coding turns that call a
// tool (each tool's side effect is a file named after the message's token), and answers given
// through the dashboard's API or by pressing the request message's button in Telegram.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InlineKeyboardButton, InlineKeyboardMarkup } from '@grammyjs/types';
import type { ChaosSystem, Executor } from './chaos-system.ts';
import type { Prng } from './prng.ts';

/** The mock's tool words (packages/testkit/src/mock-models/behaviour.ts) the suite uses. */
export type ToolWord = 'TOOLBASH' | 'TOOLWRITE' | 'TOOLEDIT' | 'TOOLSHELL';
export interface ToolSent {
  token: string;
  word: ToolWord;
  sessionId: string;
  folder: string;
  text: string;
}
export interface AnswerGiven {
  promptId: string;
  decision: 'allow' | 'deny';
  via: 'web' | 'bot';
  at: number;
  result: string;
}

/** The file whose existence (or content) proves the tool ran, for a token. */
export function sideEffect(t: Pick<ToolSent, 'word' | 'token' | 'folder'>): { file: string; ran: (content: string | null) => boolean } {
  const at = (name: string) => path.join(t.folder, name);
  switch (t.word) {
    case 'TOOLBASH':
    case 'TOOLSHELL':
      return { file: at(`ran-${t.token}`), ran: (c) => c !== null };
    case 'TOOLWRITE':
      return { file: at(`written-${t.token}.txt`), ran: (c) => c !== null };
    case 'TOOLEDIT':
      return { file: at(`edit-${t.token}.txt`), ran: (c) => (c ?? '').includes(`after ${t.token}`) };
    default:
      return t.word satisfies never;
  }
}

/** The message text for a coding turn: Claude runs a shell command, writes or edits a file; Codex runs an escalated command. */
export function toolText(rng: Prng, executor: Executor, token: string, folder: string): { text: string; word: ToolWord } {
  const word: ToolWord = executor === 'codex' ? 'TOOLSHELL' : rng.pick(['TOOLBASH', 'TOOLBASH', 'TOOLWRITE', 'TOOLEDIT'] as const);
  // Claude edits only a file it has read: the file is there before the turn, the edit changes its line.
  if (word === 'TOOLEDIT') writeFileSync(path.join(folder, `edit-${token}.txt`), `before ${token}\n`);
  return { text: `code ${word}-${token} ${token}`, word };
}

const PRESSABLE = /^pr:([0-9a-f-]{36}):([ad])$/;

/** Prompts whose request message in the chat still offers Allow / Deny (Trust / Cancel): prompt id → message id. */
export function pressablePrompts(sys: ChaosSystem): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of sys.fake.chatMessages()) {
    const rows = (m.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? [];
    for (const b of rows.flat() as InlineKeyboardButton.CallbackButton[]) {
      const hit = PRESSABLE.exec(b.callback_data ?? '');
      if (hit) out.set(hit[1]!, m.message_id);
    }
  }
  return out;
}

/** Open prompts of these sessions that wait for the user's answer (read as the dashboard does). */
export async function pendingPrompts(sys: ChaosSystem, sessionIds: string[]): Promise<{ id: string; sessionId: string; kind: string }[]> {
  return sys.db.permissionPrompt
    .findMany({ where: { sessionId: { in: sessionIds }, state: 'pending' }, select: { id: true, sessionId: true, kind: true }, orderBy: { receivedAt: 'asc' } })
    .catch(() => []);
}

/** Allow about 60 % of the time; a denial sometimes carries a reason (dashboard only). */
const decide = (rng: Prng) => (rng.chance(0.6) ? 'allow' : 'deny') as 'allow' | 'deny';

export class PromptUser {
  readonly answers: AnswerGiven[] = [];

  constructor(
    private readonly sys: ChaosSystem,
    private readonly rng: Prng,
  ) {}

  /** The dashboard: the session's prompt list through the API, one pending prompt answered. */
  async answerWeb(sessionId: string, promptId?: string): Promise<string> {
    const { prompts } = await this.sys.services.prompts(sessionId);
    const open = prompts.filter((p) => p.state === 'pending' && (promptId === undefined || p.id === promptId));
    if (open.length === 0) return 'none';
    const p = this.rng.pick(open);
    const decision = decide(this.rng);
    const reason = decision === 'deny' && p.kind !== 'dialog' && this.rng.chance(0.5) ? 'chaos says no' : undefined;
    const at = Date.now();
    try {
      const r = await this.sys.services.answer(p.id, decision, reason);
      this.answers.push({ promptId: p.id, decision, via: 'web', at, result: r.kind });
      return r.kind;
    } catch (err) {
      this.answers.push({ promptId: p.id, decision, via: 'web', at, result: `error ${(err as Error).message.slice(0, 60)}` });
      return 'error';
    }
  }

  /** Telegram: presses Allow or Deny (Trust or Cancel) on a request message that still shows them. */
  async answerBot(promptId?: string): Promise<string> {
    const shown = pressablePrompts(this.sys);
    const ids = [...shown.keys()].filter((id) => promptId === undefined || id === promptId);
    if (ids.length === 0) return 'none';
    const id = this.rng.pick(ids);
    const decision = decide(this.rng);
    try {
      this.sys.fake.userPresses(shown.get(id)!, `pr:${id}:${decision === 'allow' ? 'a' : 'd'}`);
      this.answers.push({ promptId: id, decision, via: 'bot', at: Date.now(), result: 'pressed' });
      return 'pressed';
    } catch {
      // The bot redrew the message without its buttons in the meantime.
      return 'gone';
    }
  }

  /** Either front end, as the seed says; the other is tried when the first has nothing to answer. */
  async answerAny(sessionId: string, promptId: string): Promise<string> {
    if (this.rng.chance(0.5)) {
      const r = await this.answerBot(promptId);
      if (r === 'pressed') return r;
    }
    return this.answerWeb(sessionId, promptId);
  }
}
