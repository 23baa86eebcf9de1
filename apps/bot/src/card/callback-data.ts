/**
 * Button payloads (≤ 64 bytes): `<action>:<card generation>[:<session id>[:<session version>]][:<arg>]`.
 * The generation makes buttons of older cards stale; the version is passed to the engine as the
 * card version its intent was drawn for.
 */
export const ACTIONS = [
  'stop',
  'close',
  'closeYes',
  'closeNo',
  'open',
  'sessions',
  'new',
  'node',
  'exec',
  'folder',
  'resume',
  'fresh',
  'cancel',
  'arch',
  'set',
  'refresh',
  'fnode',
  'pmode',
  'pmodel',
  /** Cancel a queued message (version: its seq; arg: its id). */
  'qcancel',
  /** Cancel a scheduled message (arg: its id). */
  'sch',
  /** Close a session in its own worktree, then remove the worktree (docs/worktrees.md). */
  'closeRm',
  /** Remove a closed session's worktree with its uncommitted work: the second confirmation. */
  'wtForce',
  /** The active session's changes (git): a diff as a document (arg: `all` or `<index>.<path hash>`). */
  'gdiff',
  /** Commit all (the next text is the message), commit with the drafted message, push, draft a message. */
  'gcommit',
  'guse',
  'gpush',
  'gdraft',
  /** A voice note's Send / Edit / Cancel / Send as file (arg: `s|e|c|f:<note id>`). */
  'voice',
] as const;
export type Action = (typeof ACTIONS)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CallbackData {
  a: Action;
  gen: number;
  sessionId?: string;
  version?: number;
  arg?: string;
}

export const cb = {
  encode(d: CallbackData): string {
    const s = [d.a, String(d.gen), d.sessionId ?? '', d.version === undefined ? '' : String(d.version), d.arg ?? ''].join(':').replace(/:+$/, '');
    if (Buffer.byteLength(s) > 64) throw new Error(`callback data too long (${Buffer.byteLength(s)} bytes)`);
    return s;
  },
  decode(s: string): CallbackData | undefined {
    const [a, gen, sessionId, version, ...rest] = s.split(':');
    if (!a || !(ACTIONS as readonly string[]).includes(a) || !/^\d{1,9}$/.test(gen ?? '')) return undefined;
    // Ids reach the database; anything not shaped like one is tampering, refused before it gets there.
    if (sessionId && !UUID.test(sessionId)) return undefined;
    return {
      a: a as Action,
      gen: Number(gen),
      ...(sessionId ? { sessionId } : {}),
      ...(version && /^\d+$/.test(version) ? { version: Number(version) } : {}),
      ...(rest.length && rest.join(':') ? { arg: rest.join(':') } : {}),
    };
  },
};
