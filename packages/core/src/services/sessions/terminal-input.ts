import { AppError } from '../../domain/index.ts';
import { notifyTerminal } from '../../db/repos/terminal-notices.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';

/** States in which the session's CLI runs in its pane. */
const RUNNING = new Set(['Ready', 'Running', 'Stopping', 'ClosingAfterWork']);

/**
 * Keys typed into the live terminal (after the dashboard's explicit switch). Refused while a dialog
 * Bria tracks is open (a permission request or question: a key could answer it) and without a running
 * CLI; the agent checks its own open requests again before it types. Nothing is stored: the keys go
 * to the hub as a NOTIFY and from there to the agent.
 */
export async function terminalInput(deps: ServiceDeps, input: { sessionId: string; data: string }): Promise<void> {
  const d = depsOf(deps);
  const s = await d.db.session.findUnique({ where: { id: input.sessionId }, select: { state: true, openPrompts: true } });
  if (!s) throw new AppError('NOT_FOUND', { message: 'session not found' });
  if (s.openPrompts > 0) throw new AppError('CONFLICT', { message: 'a dialog is open', userMessage: 'sessions.terminal_dialog_open' });
  if (!RUNNING.has(s.state)) throw new AppError('CONFLICT', { message: `no running CLI in ${s.state}`, userMessage: 'sessions.terminal_not_running' });
  await notifyTerminal(d.db, { sessionId: input.sessionId, op: 'input', data: input.data });
}
