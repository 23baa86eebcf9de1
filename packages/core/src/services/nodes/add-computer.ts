import { createNodeWithToken } from '../../db/repos/nodes.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';

export interface AddComputerOptions {
  db: Db;
  name: string;
  /** The hub's agent endpoint as the new computer reaches it, e.g. `ws://203.0.113.5:3001/agent`. */
  hubPublicUrl: string;
}

export interface AddedComputerDto {
  nodeId: string;
  name: string;
  /** Shown once; only its hash is stored. */
  token: string;
  /** What to run on that computer, inside a Bria checkout. */
  command: string;
}

export async function addComputer(opts: AddComputerOptions): Promise<AddedComputerDto> {
  const name = opts.name.trim();
  if (!name) throw new AppError('INVALID_INPUT', { message: 'computer name is empty', userMessage: 'nodes.add.nameRequired' });
  if (!/^wss?:\/\/[^\s]+$/.test(opts.hubPublicUrl)) {
    throw new AppError('INVALID_INPUT', { message: 'hub public URL is not a ws(s) URL' });
  }
  const { nodeId, token } = await createNodeWithToken(opts.db, { name, label: 'dashboard' });
  return { nodeId, name, token, command: `npm run agent -- --hub ${opts.hubPublicUrl} --token ${token}` };
}
