import type { IncomingHttpHeaders } from 'node:http';
import { PROTOCOL_MISMATCH_DELAY_MS, PROTOCOL_VERSION, PROTOCOL_HEADER } from '../protocol/index.ts';

/** The protocol an agent names on its upgrade request (`x-bria-protocol`), or null without one. */
export function upgradeProtocol(headers: IncomingHttpHeaders): number | null {
  const v = headers[PROTOCOL_HEADER];
  if (typeof v !== 'string' || !/^\d{1,6}$/.test(v.trim())) return null;
  return Number(v);
}

/** The `protocol` of a hello frame this hub could not parse (another protocol's), or null. */
export function helloProtocol(raw: unknown): number | null {
  try {
    const text = typeof raw === 'string' ? raw : Buffer.from(raw as Buffer).toString('utf8');
    const frame = JSON.parse(text) as { type?: unknown; protocol?: unknown };
    return frame.type === 'hello' && typeof frame.protocol === 'number' ? frame.protocol : null;
  } catch {
    return null;
  }
}

/** The refusal for an agent of another protocol version; null when it speaks this hub's. */
export function protocolMismatch(agentProtocol: number | null): { message: string; retryAfterMs: number } | null {
  if (agentProtocol === null || agentProtocol === PROTOCOL_VERSION) return null;
  const which = agentProtocol < PROTOCOL_VERSION ? 'older' : 'newer';
  return {
    message:
      `This agent speaks protocol ${agentProtocol} and the hub protocol ${PROTOCOL_VERSION} (the agent is ${which}). ` +
      `${which === 'older' ? 'Update the agent: the dashboard (Computers) shows the command.' : 'Update Bria on the server, or install the agent the server hands out.'}`,
    retryAfterMs: PROTOCOL_MISMATCH_DELAY_MS,
  };
}
