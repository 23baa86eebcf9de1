import { type CommandAnswer, type Command, failureCode, parseSessionCommand, type SessionCommandPayload } from '@bria/core/protocol';
import { nativeIdRefusal } from '../executors/index.ts';
import type { DiscoveryFeed } from './discovery-feed.ts';
import type { Result, SessionControl } from './session-control.ts';
import { validateFolder } from './validate-folder.ts';

type LiveCommand = 'start_session' | 'resume_session' | 'deliver' | 'interrupt' | 'close_session' | 'attach_session' | 'compact_context' | 'adopt_in_place';

const invalid = (error: string): CommandAnswer => ({ ok: false, code: 'invalid_payload', error: `invalid payload: ${error.slice(0, 300)}` });
const unsupported = (command: string): CommandAnswer => ({ ok: false, code: 'unsupported', error: `unsupported command ${command}` });

/**
 * Runs one hub command (its id was already recorded in the ledger, so it runs once). The result
 * becomes the command's `command_result` event; session facts travel as their own events. Every
 * answer that is not `ok` carries its machine `code` (protocol `command-results.ts`).
 */
export async function handleSessionCommand(cmd: Command, control: SessionControl, discovery: DiscoveryFeed | null): Promise<CommandAnswer> {
  switch (cmd.command) {
    case 'validate_folder': {
      const parsed = parseSessionCommand('validate_folder', cmd.payload);
      if (!parsed.ok) return invalid(parsed.error);
      return { ...(await validateFolder(parsed.payload.folder)) };
    }
    case 'discover': {
      const parsed = parseSessionCommand('discover', cmd.payload);
      if (!parsed.ok) return invalid(parsed.error);
      if (!discovery) return { ok: false, code: 'unsupported', error: 'discovery is off on this agent' };
      return { ok: true, sessions: await discovery.sendAll() };
    }
    case 'start_session':
      return sessionCommand(cmd, control, 'start_session', (id, p) => control.start(id, p));
    case 'resume_session':
      return sessionCommand(cmd, control, 'resume_session', (id, p) => control.resume(id, p));
    case 'deliver':
      return sessionCommand(cmd, control, 'deliver', (id, p) => control.deliver(id, p));
    case 'close_session':
      return sessionCommand(cmd, control, 'close_session', (id) => control.close(id));
    case 'attach_session':
      return sessionCommand(cmd, control, 'attach_session', (id, p) => control.attach(id, p));
    case 'interrupt':
      return sessionCommand(cmd, control, 'interrupt', (id) => control.interrupt(id));
    case 'read_journal': {
      // Handled by the agent itself (`read-journal.ts`); here only a payload check, as before.
      const parsed = parseSessionCommand('read_journal', cmd.payload);
      return parsed.ok ? unsupported(cmd.command) : invalid(parsed.error);
    }
    case 'answer_permission': {
      // Handled by the agent itself (`hooks/hook-reporter.ts`); here only a payload check.
      const parsed = parseSessionCommand('answer_permission', cmd.payload);
      return parsed.ok ? unsupported(cmd.command) : invalid(parsed.error);
    }
    case 'compact_context':
      return sessionCommand(cmd, control, 'compact_context', (id) => control.compact(id));
    case 'adopt_in_place':
      return sessionCommand(cmd, control, 'adopt_in_place', (id, p) => control.adopt(id, p));
    case 'answer_dialog': {
      // Handled by the agent itself (`answer-dialog.ts` through `Agent`); here only a payload check.
      const parsed = parseSessionCommand('answer_dialog', cmd.payload);
      return parsed.ok ? unsupported(cmd.command) : invalid(parsed.error);
    }
    case 'archive_journal':
    case 'probe':
    // Handled by the agent itself (`git/git-command.ts`).
    case 'git_worktree_add':
    case 'git_changes':
    case 'git_commit':
    case 'git_push':
    case 'git_finish':
      return unsupported(cmd.command);
    default:
      return cmd.command satisfies never;
  }
}

/**
 * A command of one session: payload checked, generation claimed, then run after the session's
 * earlier commands (an interrupt runs at once: it must not wait behind a delivery waiting for its
 * receipt).
 */
async function sessionCommand<T extends LiveCommand>(
  cmd: Command,
  control: SessionControl,
  type: T,
  run: (sessionId: string, p: SessionCommandPayload<T>) => Promise<Result>,
): Promise<CommandAnswer> {
  const parsed = parseSessionCommand(type, cmd.payload);
  if (!parsed.ok) return invalid(parsed.error);
  const p: SessionCommandPayload<LiveCommand> = parsed.payload;
  const sessionId = cmd.sessionId;
  if (!sessionId) return { ok: false, code: 'invalid_payload', error: 'session command without a session id' };
  const messageId = 'messageId' in p ? p.messageId : undefined;
  const claimed = async (): Promise<CommandAnswer> => {
    const stale = control.claim(sessionId, p.generation);
    if (stale) return { ok: false, code: 'stale_generation', stale: true, error: stale, ...(messageId !== undefined ? { typed: false, messageId } : {}) };
    return withCode(type, p, await run(sessionId, parsed.payload));
  };
  return type === 'interrupt' ? claimed() : control.serial(sessionId, claimed);
}

/**
 * The machine code of an answer `SessionControl` built, from its machine flags and the command's own
 * payload (never from its text); an answer that already has one, or is `ok`, is kept as it is.
 */
export function withCode(type: LiveCommand, p: SessionCommandPayload<LiveCommand>, r: Result): CommandAnswer {
  if (r.ok === true || typeof r.code === 'string') return r;
  if (type === 'start_session' && r.refused === true) return { ...r, code: 'conversation_may_exist' };
  if (type === 'resume_session' && 'nativeSessionId' in p && 'executor' in p) {
    // The resume checks the id first, before anything else: a refusal with a bad id is that one.
    if (r.refused === true) return { ...r, code: p.nativeSessionId && nativeIdRefusal(p.executor, p.nativeSessionId) ? 'invalid_native_id' : 'folder_missing' };
    if (r.empty === true) return { ...r, code: 'nothing_to_resume' };
  }
  if (Array.isArray(r.mismatches)) return { ...r, code: 'identity_mismatch' };
  return { ...r, code: failureCode(r) ?? 'failed' };
}
