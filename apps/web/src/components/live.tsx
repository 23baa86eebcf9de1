'use client';
import { type QueryFilters, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTRPC } from './trpc.ts';

/** `reconnecting`: it was live and the stream dropped; what is on screen stays while it comes back. */
export type LiveStatus = 'live' | 'connecting' | 'reconnecting';
const LiveContext = createContext<LiveStatus>('connecting');
export const useLiveStatus = () => useContext(LiveContext);

// Bursts (a transition writes session, messages and evidence) become one reload.
const COALESCE_MS = 150;
const FIRST_CONNECT_GRACE_MS = 4_000;

/**
 * One subscription per page: Postgres announces which session or node changed (whoever changed
 * it: the bot, the hub, another tab) and the queries on screen reload. A (re)connect reloads
 * everything, because changes made while disconnected were not announced to us.
 */
export function LiveUpdates({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<{ sessions: boolean; nodes: boolean; all: boolean; timer: ReturnType<typeof setTimeout> | null }>({
    sessions: false,
    nodes: false,
    all: false,
    timer: null,
  });

  // A fetch already in flight may have read the database before the change; invalidating alone
  // would join that fetch (TanStack dedupes a first load), so it is cancelled and started again.
  const reload = (filter?: QueryFilters) => {
    void queryClient.cancelQueries(filter).then(() => queryClient.invalidateQueries(filter));
  };
  const flush = () => {
    const p = pending.current;
    p.timer = null;
    if (p.all) reload();
    else {
      if (p.sessions) {
        // Not the journal: reading it is a command to the node; the session page reloads it itself.
        const journal = JSON.stringify(trpc.sessions.journal.pathKey()[0]);
        reload({ ...trpc.sessions.pathFilter(), predicate: (query) => JSON.stringify(query.queryKey[0]) !== journal });
        reload(trpc.archive.pathFilter());
      }
      if (p.nodes || p.sessions) reload(trpc.nodes.pathFilter());
    }
    p.sessions = p.nodes = p.all = false;
  };

  const sub = useSubscription(
    trpc.live.changes.subscriptionOptions(undefined, {
      onData: (change) => {
        const p = pending.current;
        if (change.kind === 'resync') p.all = true;
        else if (change.kind === 'session') p.sessions = true;
        else p.nodes = true;
        p.timer ??= setTimeout(flush, COALESCE_MS);
      },
    }),
  );
  const wasLive = useRef(false);
  const up = sub.status === 'pending';
  if (up) wasLive.current = true;
  // A first connection gets a moment; a stream that never comes up is as lost as one that dropped.
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (up) return setSlow(false);
    const timer = setTimeout(() => setSlow(true), FIRST_CONNECT_GRACE_MS);
    return () => clearTimeout(timer);
  }, [up]);
  const status: LiveStatus = up ? 'live' : wasLive.current || slow ? 'reconnecting' : 'connecting';
  return <LiveContext value={status}>{children}</LiveContext>;
}
