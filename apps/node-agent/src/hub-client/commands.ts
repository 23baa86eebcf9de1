import { type Command, type CommandAnswer, failureCode, isGitCommand } from '@bria/core/protocol';
import type { CommandRecord, Ledger } from '../ledger/ledger.ts';
import type { AgentLog } from '../log.ts';
import type { AgentEventOut } from './options.ts';

export interface CommandRunnerDeps {
  ledger: Ledger;
  log: AgentLog;
  /** Runs a command the first time its id is seen (HubClientOptions.onCommand). */
  run: (cmd: Command) => Promise<CommandAnswer>;
  onInterrupted?: (rec: CommandRecord) => Promise<CommandAnswer>;
  /** Sends `command_ack` for an id (when online). */
  ack: (id: string) => void;
  /** Records (and sends) the command's result event. */
  emit: (e: AgentEventOut) => void;
  /** `stop` has returned: nothing is written any more. */
  closed: () => boolean;
}

/**
 * The hub's commands on the agent: each id run once (the ledger remembers it), its answer recorded
 * as a `command_result` event before the `done` mark, an unknown kind answered `unsupported`, and the
 * commands an earlier run died running answered as interrupted, never run again.
 */
export class CommandRunner {
  /** Command ids this process is running now (a redelivery of one of them is only acknowledged). */
  private readonly running = new Set<string>();
  /** Resolved whenever a running command ends (stop waits for the ones in flight). */
  private commandEnded: (() => void) | undefined;

  constructor(private readonly d: CommandRunnerDeps) {}

  async handle(cmd: Command): Promise<void> {
    const ledger = this.d.ledger;
    const seen = ledger.command(cmd.id);
    const messageId = typeof cmd.payload.messageId === 'string' ? cmd.payload.messageId : undefined;
    const generation = typeof cmd.payload.generation === 'number' ? cmd.payload.generation : undefined;
    if (!seen)
      ledger.recordCommand({ id: cmd.id, command: cmd.command, receivedAt: Date.now(), status: 'received', sessionId: cmd.sessionId, messageId, generation });
    this.d.ack(cmd.id);
    // A repeated id is answered from the ledger: its result event is already durable (and
    // replayed if unacked), so nothing is executed a second time. One an earlier run of the agent
    // died running is answered as interrupted (normally already done at start).
    if (seen) {
      if (seen.status === 'received' && !this.running.has(cmd.id)) await this.answerInterrupted(seen);
      return;
    }
    this.running.add(cmd.id);
    let result: CommandAnswer;
    try {
      result = await this.d.run(cmd);
    } catch (err) {
      result = { ok: false, code: 'failed', error: (err as Error).message };
    } finally {
      this.running.delete(cmd.id);
    }
    this.finish(ledger.command(cmd.id)!, result);
    this.commandEnded?.();
  }

  /**
   * A well-formed command of a type this agent does not know (a newer hub): acknowledged and
   * answered `unsupported`, nothing run, the connection kept (closing would only make the hub send
   * it again after the reconnect). A repeated id is only acknowledged.
   */
  unknown(u: { id: string; command: string; sessionId?: string }): void {
    const seen = this.d.ledger.command(u.id);
    this.d.ack(u.id);
    if (seen) return;
    this.d.log('warn', 'agent.command_unsupported', { commandId: u.id, command: u.command });
    this.finish(
      { id: u.id, command: u.command, receivedAt: Date.now(), status: 'received', sessionId: u.sessionId },
      { ok: false, code: 'unsupported', error: `This agent does not know the command "${u.command}"; update the agent.` },
    );
  }

  /**
   * Answers every command an earlier run of the agent recorded as received and never finished. Run
   * once at start, before the connection, so the answers precede anything the hub could send again.
   */
  async answerAllInterrupted(): Promise<number> {
    const open = this.d.ledger.unfinishedCommands().filter((c) => !this.running.has(c.id));
    for (const rec of open) await this.answerInterrupted(rec);
    return open.length;
  }

  private async answerInterrupted(rec: CommandRecord): Promise<void> {
    let result: CommandAnswer;
    try {
      result = this.d.onInterrupted ? await this.d.onInterrupted(rec) : { ok: false };
    } catch (err) {
      result = { ok: false, error: (err as Error).message };
    }
    this.d.log('warn', 'agent.command_interrupted', { commandId: rec.id, command: rec.command, sessionId: rec.sessionId });
    this.finish(rec, { ...result, interrupted: true });
  }

  /**
   * The result event is written before the `done` mark: a crash between the two answers the command
   * once more on the next start, which the hub tolerates (every effect of an answer is conditional on
   * the exact command id), while the other order could lose the only answer.
   */
  private finish(rec: CommandRecord, answer: CommandAnswer): void {
    // A command that outlived `stop` (past its grace) stays `received` in the ledger: the next start
    // answers it as interrupted from what it finds, as after a crash.
    if (this.d.closed()) {
      this.d.log('warn', 'agent.command_after_stop', { commandId: rec.id, command: rec.command });
      return;
    }
    // Every answer that is not `ok` carries its machine code; one built without it gets the code its flags stand for.
    const code = answer.ok === true || typeof answer.code === 'string' ? null : failureCode(answer);
    const result = code ? { ...answer, code } : answer;
    this.d.emit({ event: 'command_result', commandId: rec.id, sessionId: rec.sessionId, payload: { command: rec.command, ...result } });
    // A read_journal answer is conversation text, a git answer holds diffs, both already durable in
    // the event: the ledger keeps no copy.
    const keep = rec.command !== 'read_journal' && !isGitCommand(rec.command);
    this.d.ledger.recordCommand({ ...rec, receivedAt: Date.now(), status: 'done', ...(keep ? { result } : {}) });
  }

  /** Waits (at most `ms`) until no command is running, so a stop in the middle of one records its answer. */
  async waitForRunning(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.running.size > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, deadline - Date.now());
        t.unref();
        this.commandEnded = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    this.commandEnded = undefined;
  }
}
