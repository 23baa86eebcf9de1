import type { Socket } from 'node:net';
import { type HookRefusal, type HookToAgentFrame, hookLine, LineSplitter, parseHookLine } from './hook-wire.ts';

type RequestFrame = Extract<HookToAgentFrame, { type: 'permission_request' }>;
type ToolStartFrame = Extract<HookToAgentFrame, { type: 'tool_start' }>;

export interface HookConnectionDeps {
  maxLineBytes: number;
  /** The root of a live session's CLI tree on this agent (its pane's process), or null: no such session. */
  sessionRoot: (sessionId: string) => number | null;
  /** The processes on the other end, from the kernel; null where that view is not available. */
  peerPids: (socket: Socket) => Promise<number[] | null>;
  inTree: (pid: number, root: number) => boolean;
  /** A verified request: its id, or null when nothing opened (a hook back for an ended request). */
  request: (socket: Socket, frame: RequestFrame) => string | null;
  toolStart: (socket: Socket, frame: ToolStartFrame) => void;
  delivered: (requestId: string) => void;
  closed: (requestId: string, socket: Socket) => void;
  refused: (reason: HookRefusal, fields: { sessionId?: string; peerPids?: number[] | null; reportedPid?: number | null }) => void;
}

/** A connection carries one request (or one tool start) and at most its acknowledgement. */
const MAX_FRAMES = 2;
/** A refused hook reads its `refused` frame and ends; one that does not is cut off after this. */
const REFUSED_GRACE_MS = 2_000;

/**
 * One hook connection: bounded lines, each parsed into the typed union, the first frame's session
 * checked (a live session of this agent, asked from a process inside its CLI tree) before anything
 * is stored or shown. Any refusal is sent with its reason, logged, and ends the connection; the
 * hook then prints nothing and the CLI keeps its own dialog.
 */
export function serveHookConnection(socket: Socket, d: HookConnectionDeps): void {
  const lines = new LineSplitter(d.maxLineBytes);
  const peer = d.peerPids(socket).catch(() => null);
  const queue: string[] = [];
  let frames = 0;
  let opened = false;
  let busy = false;
  let done = false;
  let requestId: string | null = null;

  const refuse = (reason: HookRefusal, fields: Parameters<HookConnectionDeps['refused']>[1] = {}) => {
    if (done) return;
    done = true;
    queue.length = 0;
    d.refused(reason, fields);
    if (!socket.destroyed) socket.end(hookLine({ type: 'refused', reason }));
    setTimeout(() => socket.destroy(), REFUSED_GRACE_MS).unref();
  };

  const verify = async (f: RequestFrame | ToolStartFrame): Promise<HookRefusal | null> => {
    const root = d.sessionRoot(f.sessionId);
    if (root === null) return 'unknown_session';
    const pids = await peer;
    if (pids === null) {
      // No kernel view here: the pid the hook reports, which must run inside the session's tree.
      const reported = f.hookPid ?? null;
      if (reported === null) return 'peer_unverified';
      return d.inTree(reported, root) ? null : 'peer_outside_session';
    }
    if (pids.length === 0) return 'peer_unverified';
    return pids.every((p) => d.inTree(p, root)) ? null : 'peer_outside_session';
  };

  const handle = async (line: string): Promise<void> => {
    const parsed = parseHookLine(line);
    if (!parsed.ok) return refuse(parsed.reason);
    const f = parsed.frame;
    if (f.type === 'delivered') {
      if (requestId === null) return refuse('out_of_order');
      return d.delivered(requestId);
    }
    if (opened) return refuse('out_of_order');
    opened = true;
    const why = await verify(f);
    if (why) return refuse(why, { sessionId: f.sessionId, peerPids: await peer, reportedPid: f.hookPid ?? null });
    if (done || socket.destroyed) return;
    if (f.type === 'tool_start') {
      done = true;
      return d.toolStart(socket, f);
    }
    requestId = d.request(socket, f);
    if (requestId === null) done = true;
  };

  const pump = async () => {
    if (busy) return;
    busy = true;
    for (let line = queue.shift(); line !== undefined && !done; line = queue.shift()) await handle(line);
    busy = false;
  };

  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    if (done) return;
    const got = lines.push(chunk);
    if (got === 'too_long') return refuse('line_too_long');
    for (const line of got) {
      if (++frames > MAX_FRAMES) return refuse('out_of_order');
      queue.push(line);
    }
    void pump();
  });
  socket.on('close', () => {
    done = true;
    if (requestId !== null) d.closed(requestId, socket);
  });
}
