'use client';
import { useQueries, useQuery } from '@tanstack/react-query';
import type { OpenSession } from './session-filters.ts';
import { useTRPC } from './trpc.ts';

/**
 * Every open session on every computer. There is no list across computers on the server yet, so
 * this is `nodes.list` plus one `sessions.listOpen` per computer, in parallel (a person has a few
 * computers). The live stream reloads them like any other sessions query.
 */
export function useOpenSessions() {
  const trpc = useTRPC();
  const nodes = useQuery(trpc.nodes.list.queryOptions());
  const list = nodes.data?.nodes ?? [];
  const perNode = useQueries({ queries: list.map((n) => trpc.sessions.listOpen.queryOptions({ nodeId: n.id })) });
  const sessions: OpenSession[] = perNode.flatMap((q, i) => {
    const node = list[i];
    return node && q.data ? q.data.sessions.map((s) => ({ ...s, nodeName: node.name, nodeOnline: node.online })) : [];
  });
  const error = nodes.error ?? perNode.find((q) => q.error)?.error ?? null;
  return {
    nodes,
    sessions,
    /** True until every computer's list arrived once. */
    pending: nodes.isPending || perNode.some((q) => q.isPending),
    error,
  };
}
