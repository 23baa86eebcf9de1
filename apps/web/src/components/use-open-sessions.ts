'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OpenSession, SessionFilter } from './session-filters.ts';
import { useTRPC } from './trpc.ts';

const NO_FILTER: SessionFilter = { nodeId: '', executor: '', group: '' };

/**
 * Open sessions across computers from one server call (`sessions.listAllOpen`), filtered and
 * ordered (newest activity first) by the server; `nodes.list` beside it for the computers. The
 * live stream reloads both like any other sessions query. While a new filter loads, the previous
 * list stays on screen.
 */
export function useOpenSessions(filter: SessionFilter = NO_FILTER) {
  const trpc = useTRPC();
  const nodes = useQuery(trpc.nodes.list.queryOptions());
  const input = { nodeId: filter.nodeId || undefined, executor: filter.executor || undefined, group: filter.group || undefined };
  const open = useQuery(trpc.sessions.listAllOpen.queryOptions(input, { placeholderData: keepPreviousData }));
  const sessions: OpenSession[] = open.data?.sessions ?? [];
  return {
    nodes,
    sessions,
    /** True until the first list arrived. */
    pending: open.isPending,
    /** A list for other filters is on screen while this one loads. */
    stale: open.isPlaceholderData,
    error: nodes.error ?? open.error ?? null,
  };
}
