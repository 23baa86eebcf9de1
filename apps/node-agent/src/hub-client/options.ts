import type { Command, CommandAnswer, Hello, SessionEventOut, Terminal } from '@bria/core/protocol';
import type { CommandRecord, Ledger } from '../ledger/ledger.ts';
import type { AgentLog } from '../log.ts';

/** How long `stop` lets running commands finish and record their answers. */
export const STOP_GRACE_MS = 3_000;

/**
 * An event the agent sends, checked by the compiler: a session event (`protocol/session-events.ts`)
 * or a command's answer (`protocol/command-results.ts`).
 */
export type AgentEventOut =
  | (SessionEventOut & { sessionId?: string; generation?: number; commandId?: undefined; at?: number })
  | { event: 'command_result'; commandId: string; sessionId?: string; generation?: undefined; payload: CommandAnswer & { command: string }; at?: number };

export interface HubClientOptions {
  url: string;
  token: string;
  ledger: Ledger;
  hello: () => Omit<Hello, 'type' | 'protocol' | 'lastEventSeq' | 'instanceId'>;
  /** Handles a command the first time its id is seen. Its result becomes a `command_result` event. */
  onCommand: (cmd: Command) => Promise<CommandAnswer>;
  /**
   * The answer for a command an earlier run of the agent recorded as received but never finished
   * (it was SIGKILLed while running it). Never runs the command again: it only reports what is known.
   */
  onInterrupted?: (rec: CommandRecord) => Promise<CommandAnswer>;
  log: AgentLog;
  random?: () => number;
  /** A dashboard watches or types into a session's pane (protocol/live-frames.ts; ephemeral). */
  onTerminal?: (t: Terminal) => void;
  /** Extra CA certificates (PEM) to trust for wss:// besides the system's (--ca). */
  ca?: Buffer;
  /**
   * `--ca-sha256`: the SHA-256 of the hub's CA certificate. The CA is fetched from the hub's chain
   * and becomes the only one trusted (pinned-ca.ts); the host name is then not checked: the pin
   * names the hub, as a known host key does.
   */
  caSha256?: string;
  /** How long `stop` lets running commands finish and record their answers (default 3 s). */
  stopGraceMs?: number;
}

/** `wss://` to this computer: the certificate's chain is checked, its host name is not (it names the server's public name). */
export function isLoopbackUrl(url: string): boolean {
  const h = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export type ConnectionState = 'connecting' | 'online' | 'offline' | 'refused';
