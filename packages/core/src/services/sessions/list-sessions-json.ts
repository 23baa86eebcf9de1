import { contextOf, type ContextDto, depsOf, type ServiceDeps } from './session-dto.ts';
import type { CurrentActivity } from '../../domain/index.ts';

/** One session in the machine-readable listing (`npm run sessions -- --json`, SPEC §5). Stable field names. */
export interface SessionListingItem {
  id: string;
  state: string;
  node: { id: string; name: string; online: boolean };
  executor: 'claude' | 'codex';
  nativeSessionId: string | null;
  folder: string;
  title: string | null;
  permissionMode: string;
  model: string | null;
  createdAt: string;
  lastActivityAt: string | null;
  archivedAt: string | null;
  /** What the CLI does now (from its journal), only while a turn runs. */
  activity: CurrentActivity | null;
  /** The last request's token counters as the agent reported them. */
  tokens: { input: number | null; output: number | null };
  context: ContextDto | null;
  openPrompts: number;
}

const WORKING = new Set(['Running', 'Stopping', 'ClosingAfterWork']);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Sessions for scripts: the open ones (all with `includeArchived`), newest first. */
export async function listSessionsForScripts(deps: ServiceDeps, o: { includeArchived?: boolean; limit?: number } = {}): Promise<SessionListingItem[]> {
  const { db } = depsOf(deps);
  const rows = await db.session.findMany({
    where: o.includeArchived ? {} : { state: { not: 'Archived' } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: o.limit ?? 500,
    select: {
      id: true,
      state: true,
      executor: true,
      nativeSessionId: true,
      folder: true,
      title: true,
      permissionMode: true,
      model: true,
      createdAt: true,
      nativeLastActivity: true,
      archivedAt: true,
      activity: true,
      usage: true,
      contextUsed: true,
      contextWindow: true,
      contextWindowSource: true,
      compactions: true,
      openPrompts: true,
      node: { select: { id: true, name: true, online: true } },
    },
  });
  return rows.map((r) => {
    const usage = (r.usage ?? {}) as Record<string, unknown>;
    return {
      id: r.id,
      state: r.state,
      node: r.node,
      executor: r.executor,
      nativeSessionId: r.nativeSessionId,
      folder: r.folder,
      title: r.title,
      permissionMode: r.permissionMode,
      model: r.model,
      createdAt: r.createdAt.toISOString(),
      lastActivityAt: r.nativeLastActivity?.toISOString() ?? null,
      archivedAt: r.archivedAt?.toISOString() ?? null,
      activity: WORKING.has(r.state) && r.activity ? (r.activity as unknown as CurrentActivity) : null,
      tokens: { input: num(usage.inputTokens), output: num(usage.outputTokens) },
      context: contextOf(r),
      openPrompts: r.openPrompts,
    };
  });
}
