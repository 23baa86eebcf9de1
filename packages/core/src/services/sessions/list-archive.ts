import { AppError, isAbsoluteFolder } from '../../domain/index.ts';
import { archiveSnippets, findArchivedMatches, listArchiveRows } from '../../db/repos/sessions.ts';
import { readSettings } from '../../db/repos/settings.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';

/** `nodeId` absent: every computer's archive. */
export interface ListArchiveInput {
  nodeId?: string;
  search?: string;
  executor?: 'claude' | 'codex';
  cursor?: string;
  limit?: number;
}
/**
 * `match`: for a search, the newest message of the session whose prompt or final holds the words,
 * as a snippet with the matched words between MATCH_START and MATCH_END (null: the title, folder or
 * first prompt matched).
 */
export type ArchiveItem = SessionDto & {
  match: { messageId: string; snippet: string } | null;
  /** The computer it ran on; `removed`: that computer was removed (its sessions stay here). */
  node: { name: string; removed: boolean };
};
export interface ArchivePage {
  items: ArchiveItem[];
  nextCursor: string | null;
}

/** The archive, newest activity first, keyset-paginated (stable and fast at 10k+ rows); searchable by conversation text. */
export async function listArchive(deps: ServiceDeps, input: ListArchiveInput): Promise<ArchivePage> {
  const { db } = depsOf(deps);
  const limit = Math.min(Math.max(input.limit ?? 30, 1), 100);
  // A NUL cannot reach Postgres (22021 fails the whole query: `/archive` answered with an error); it matches nothing anyway.
  const search = input.search?.replaceAll('\u0000', '').trim().slice(0, 200) || undefined;
  const rows = await listArchiveRows(db, {
    ...(input.nodeId ? { nodeId: input.nodeId } : {}),
    limit: limit + 1,
    ...(search ? { search } : {}),
    ...(input.executor ? { executor: input.executor } : {}),
    ...(input.cursor ? { cursor: input.cursor } : {}),
  });
  const page = rows.slice(0, limit);
  const snippets = search
    ? await archiveSnippets(
        db,
        page.map((r) => r.id),
        search,
      )
    : new Map();
  const nodes = await db.node.findMany({ where: { id: { in: [...new Set(page.map((r) => r.nodeId))] } }, select: { id: true, name: true, removedAt: true } });
  const nodeOf = new Map(nodes.map((n) => [n.id, { name: n.name, removed: n.removedAt !== null }]));
  const items = page.map((r) => ({ ...toSessionDto(r), match: snippets.get(r.id) ?? null, node: nodeOf.get(r.nodeId) ?? { name: '?', removed: true } }));
  return { items, nextCursor: rows.length > limit ? (items[items.length - 1]?.id ?? null) : null };
}

/**
 * Archived sessions matching node + executor + folder, offered for exact resume when creating a
 * session — only when the global setting is on (default off: the step is absent).
 */
export async function resumeRecommendations(
  deps: ServiceDeps,
  input: { nodeId: string; executor: 'claude' | 'codex'; folder: string; limit?: number },
): Promise<{ enabled: boolean; items: SessionDto[] }> {
  const { db } = depsOf(deps);
  const settings = await readSettings(db);
  if (!settings.resumeRecommendations) return { enabled: false, items: [] };
  if (!isAbsoluteFolder(input.folder)) throw new AppError('INVALID_INPUT', { message: 'folder must be an absolute path' });
  const rows = await findArchivedMatches(db, { nodeId: input.nodeId, executor: input.executor, folder: input.folder, limit: Math.min(input.limit ?? 10, 50) });
  return { enabled: true, items: rows.map(toSessionDto) };
}
