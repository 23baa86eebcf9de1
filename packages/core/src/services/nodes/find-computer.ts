import type { Db } from '../../db/client.ts';
import { findNodeAnyState } from '../../db/repos/nodes.ts';

export type FoundComputerDto =
  | { status: 'listed'; nodeId: string; name: string }
  | { status: 'removed'; nodeId: string; name: string; removedAt: Date }
  | { status: 'unknown' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a computer's page is about (issue 31, defect 8): a listed computer, a removed one (its name
 * and when; the row stays for the archive), or no computer at all — also for text that is no id.
 */
export async function findComputer(opts: { db: Db; nodeId: string }): Promise<FoundComputerDto> {
  if (!UUID.test(opts.nodeId)) return { status: 'unknown' };
  const node = await findNodeAnyState(opts.db, opts.nodeId.toLowerCase());
  if (!node) return { status: 'unknown' };
  if (node.removedAt) return { status: 'removed', nodeId: node.id, name: node.name, removedAt: node.removedAt };
  return { status: 'listed', nodeId: node.id, name: node.name };
}
