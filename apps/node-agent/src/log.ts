import { createLogger, type Logger } from '@bria/core/log';

/** How the agent's parts log: a level, a message, allow-listed fields (ids, states, counts). */
export type AgentLog = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/**
 * The agent logs through pino like the hub, the web and the bot: one JSON line per entry, the
 * same redaction, and a launcher that reads every child's lines alike. The parts keep the small
 * `AgentLog` callback, so tests can collect entries without a stream.
 */
export function agentLogger(o: { level: string; destination?: NodeJS.WritableStream }): { logger: Logger; log: AgentLog } {
  const logger = createLogger({ name: 'agent', level: o.level, destination: o.destination });
  return { logger, log: (level, msg, fields) => logger[level](fields ?? {}, msg) };
}
