// The hub's options (server.ts).
import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { AgentEventFrame } from '../protocol/index.ts';

export interface HubOptions {
  db: Db;
  databaseUrl: string;
  host: string;
  port: number;
  heartbeatMs: number;
  log: Logger;
  /** Called after an agent event is durably stored (the session engine plugs in here). */
  onEvent?: (nodeId: string, ev: AgentEventFrame) => void;
  now?: () => Date;
  /** The agent bundle's folder (`dist/agent`): served at `/agent/…` on this port when set. */
  agentBundleDir?: string;
  /** PEM certificate and key: the hub listens with TLS (`wss://`, `https://`). */
  tls?: { cert: string | Buffer; key: string | Buffer };
}
