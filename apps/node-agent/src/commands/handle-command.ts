import { type Command, parseSessionCommand, type SessionCommandType } from '@bria/core/protocol';
import type { DiscoveryFeed } from './discovery-feed.ts';
import type { Result, SessionControl } from './session-control.ts';
import { validateFolder } from './validate-folder.ts';

const SESSION_COMMANDS = new Set<string>(['start_session', 'resume_session', 'deliver', 'interrupt', 'close_session', 'attach_session']);

/**
 * Runs one hub command (its id was already recorded in the ledger, so it runs once). The result
 * becomes the command's `command_result` event; session facts travel as their own events.
 */
export async function handleSessionCommand(cmd: Command, control: SessionControl, discovery: DiscoveryFeed | null): Promise<Result> {
  const type = cmd.command as SessionCommandType;
  const parsed = parseSessionCommand(type, cmd.payload);
  if (!parsed.ok) return { ok: false, error: `invalid payload: ${parsed.error.slice(0, 300)}` };
  if (type === 'validate_folder') {
    const p = parsed.payload as { folder: string };
    return { ...(await validateFolder(p.folder)) };
  }
  if (type === 'discover') {
    if (!discovery) return { ok: false, error: 'discovery is off on this agent' };
    return { ok: true, sessions: await discovery.sendAll() };
  }
  if (!SESSION_COMMANDS.has(type)) return { ok: false, error: `unsupported command ${type}` };
  const sessionId = cmd.sessionId;
  if (!sessionId) return { ok: false, error: 'session command without a session id' };
  const p = parsed.payload as { generation: number } & Record<string, unknown>;
  const run = async (): Promise<Result> => {
    const stale = control.claim(sessionId, p.generation);
    if (stale) return { ok: false, stale: true, error: stale, ...(type === 'deliver' ? { typed: false, messageId: p.messageId } : {}) };
    switch (type) {
      case 'start_session':
        return control.start(sessionId, p as never);
      case 'resume_session':
        return control.resume(sessionId, p as never);
      case 'deliver':
        return control.deliver(sessionId, p as never);
      case 'close_session':
        return control.close(sessionId);
      case 'attach_session':
        return control.attach(sessionId, p as never);
      default:
        return { ok: false, error: `unsupported command ${type}` };
    }
  };
  // An interrupt must not wait behind a delivery that is waiting for its receipt.
  if (type === 'interrupt') {
    const stale = control.claim(sessionId, p.generation);
    return stale ? { ok: false, stale: true, error: stale } : control.interrupt(sessionId);
  }
  return control.serial(sessionId, run);
}
