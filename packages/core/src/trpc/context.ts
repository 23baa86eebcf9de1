import type { Db } from '../db/client.ts';
import type { TranscribeConfig } from '../env.ts';
import type { ChangeFeed } from '../db/repos/change-feed.ts';
import { resolveWebSession, type SessionUser } from '../services/auth/resolve-web-session.ts';
import { CSRF_HEADER, SESSION_COOKIE } from '../services/auth/secrets.ts';
import type { BundleRef, HubCaRef } from '../services/nodes/install-command.ts';
import { validateFolderOnNode } from '../services/nodes/validate-folder-on-node.ts';

export interface Context {
  db: Db;
  /** The logged-in dashboard user, or null. */
  user: SessionUser | null;
  /** The browser session behind `user` (its id and the CSRF token it was given). */
  session: { id: string; csrfToken: string } | null;
  /** The CSRF token the request carried in its header. */
  csrfHeader: string | null;
  /** Where new computers' agents connect, e.g. `ws://host:3001/agent`. */
  hubPublicUrl: string;
  /**
   * How the hub listens, for the "can another computer reach it" notice (domain/hub-reach.ts): its
   * listen host, the variable that set it, and whether `hubPublicUrl` was configured explicitly.
   */
  hubListen: HubListen;
  /** The agent bundle this server hands out (install and update commands, outdated agents); null when not built. */
  agentBundle: () => BundleRef | null;
  /** The hub's own CA (npm start's TLS): install commands pin it. Null with BRIA_TLS_CERT or TLS off. */
  hubCa: () => HubCaRef | null;
  /** Response headers, so a procedure can set or clear the session cookie. */
  resHeaders: Headers | null;
  /** The process's LISTEN connection for live updates (absent where nothing subscribes). */
  changes: ChangeFeed | null;
  /**
   * Asks the node to check a working folder before a session is created there. HTTP requests use
   * the node's agent (`validateFolderOnNode`); router tests without an agent leave it out.
   */
  checkFolder: ((nodeId: string, folder: string) => Promise<{ folder: string }>) | null;
  /** Where this server keeps message attachments (`<data dir>/attachments`); null: uploads are refused. */
  attachmentsDir: string | null;
  /** The speech-to-text service for the record button (docs/voice.md); null: none configured. */
  transcribe: TranscribeConfig | null;
}

export const DEFAULT_HUB_PUBLIC_URL = 'ws://127.0.0.1:3001/agent';

export interface HubListen {
  host: string;
  variable: 'BRIA_HOST' | 'BRIA_HUB_HOST';
  urlConfigured: boolean;
}
/** npm start's default: everything on 127.0.0.1. */
export const DEFAULT_HUB_LISTEN: HubListen = { host: '127.0.0.1', variable: 'BRIA_HOST', urlConfigured: false };

export interface InnerContextOptions {
  db: Db;
  user?: SessionUser | null;
  session?: { id: string; csrfToken: string } | null;
  csrfHeader?: string | null;
  hubPublicUrl?: string;
  hubListen?: HubListen;
  agentBundle?: Context['agentBundle'];
  hubCa?: Context['hubCa'];
  resHeaders?: Headers | null;
  changes?: ChangeFeed | null;
  checkFolder?: Context['checkFolder'];
  attachmentsDir?: string | null;
  transcribe?: TranscribeConfig | null;
}

/** The context without HTTP: tests and server-side callers build it directly. */
export function createContextInner(opts: InnerContextOptions): Context {
  return {
    db: opts.db,
    user: opts.user ?? null,
    session: opts.session ?? null,
    csrfHeader: opts.csrfHeader ?? null,
    hubPublicUrl: opts.hubPublicUrl ?? DEFAULT_HUB_PUBLIC_URL,
    hubListen: opts.hubListen ?? DEFAULT_HUB_LISTEN,
    agentBundle: opts.agentBundle ?? (() => null),
    hubCa: opts.hubCa ?? (() => null),
    resHeaders: opts.resHeaders ?? null,
    changes: opts.changes ?? null,
    checkFolder: opts.checkFolder ?? null,
    attachmentsDir: opts.attachmentsDir ?? null,
    transcribe: opts.transcribe ?? null,
  };
}

export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The context of one HTTP request: the session cookie and the CSRF header. */
export async function createContext(opts: {
  db: Db;
  headers: Headers;
  resHeaders?: Headers;
  hubPublicUrl?: string;
  hubListen?: HubListen;
  agentBundle?: Context['agentBundle'];
  hubCa?: Context['hubCa'];
  changes?: ChangeFeed;
  attachmentsDir?: string;
  transcribe?: TranscribeConfig;
}): Promise<Context> {
  const web = await resolveWebSession({ db: opts.db, secret: readCookie(opts.headers.get('cookie'), SESSION_COOKIE) });
  return createContextInner({
    db: opts.db,
    user: web?.user ?? null,
    session: web ? { id: web.sessionId, csrfToken: web.csrfToken } : null,
    csrfHeader: opts.headers.get(CSRF_HEADER),
    hubPublicUrl: opts.hubPublicUrl,
    hubListen: opts.hubListen,
    agentBundle: opts.agentBundle,
    hubCa: opts.hubCa,
    resHeaders: opts.resHeaders ?? null,
    changes: opts.changes ?? null,
    checkFolder: (nodeId, folder) => validateFolderOnNode({ db: opts.db, nodeId, folder }),
    attachmentsDir: opts.attachmentsDir ?? null,
    transcribe: opts.transcribe ?? null,
  });
}
