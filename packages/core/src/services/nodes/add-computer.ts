import { createNodeWithToken } from '../../db/repos/nodes.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';
import { isLoopbackHost } from '../../domain/hub-reach.ts';
import { type BundleRef, type HubCaRef, installCommand } from './install-command.ts';

export interface AddComputerOptions {
  db: Db;
  name: string;
  /** The hub's agent endpoint as the new computer reaches it, e.g. `wss://bria.example.net:3001/agent`. */
  hubPublicUrl: string;
  /** The agent bundle the hub serves (`readAgentBundle`); null when it was not built. */
  bundle: BundleRef | null;
  /** The hub's own CA (npm start's default TLS): the command pins it. Null with BRIA_TLS_CERT or TLS off. */
  hubCa?: HubCaRef | null;
}

export interface AddedComputerDto {
  nodeId: string;
  name: string;
  /** Shown once; only its hash is stored. */
  token: string;
  /** What to run on that computer: downloads the agent from the hub, checks it, starts it. */
  command: string;
}

/** Plain ws:// to another machine: the token and everything else cross the network readable. */
export function isInsecureRemote(hubUrl: string): boolean {
  const u = new URL(hubUrl);
  return u.protocol === 'ws:' && !isLoopbackHost(u.hostname);
}

// One rule for "this computer only" (domain/hub-reach.ts), also used by Add a computer's notice.
export { isLoopbackHost };

export async function addComputer(opts: AddComputerOptions): Promise<AddedComputerDto> {
  const name = opts.name.trim();
  if (!name) throw new AppError('INVALID_INPUT', { message: 'computer name is empty', userMessage: 'nodes.add.nameRequired' });
  if (!/^wss?:\/\/[^\s'"]+$/.test(opts.hubPublicUrl)) {
    throw new AppError('INVALID_INPUT', { message: 'hub public URL is not a ws(s) URL' });
  }
  // Checked before the node exists: no token is issued that no command could use.
  if (!opts.bundle) {
    throw new AppError('NOT_FOUND', { message: 'the agent bundle is not built on this server: run `npm run build:agent` (npm start builds it)' });
  }
  const { nodeId, token } = await createNodeWithToken(opts.db, { name, label: 'dashboard' });
  // Only a hub whose TLS the operator turned off (BRIA_HUB_TLS=off) is reached in the clear: the
  // dashboard says so beside the command (hubReach `plaintext`), and the flag is on the line.
  const insecure = isInsecureRemote(opts.hubPublicUrl);
  const command = installCommand({ hubUrl: opts.hubPublicUrl, bundle: opts.bundle, token, insecure, ...(opts.hubCa ? { ca: opts.hubCa } : {}) });
  return { nodeId, name, token, command };
}
