import type { Db } from '../db/client.ts';
import { createLoginLink } from '../services/auth/create-login-link.ts';
import { redeemLoginToken, type NewWebSessionDto } from '../services/auth/redeem-login-token.ts';
import { CSRF_HEADER, SESSION_COOKIE } from '../services/auth/secrets.ts';
import { createCaller } from './app-router.ts';
import { type Context, createContext } from './context.ts';
import type { TranscribeConfig } from '../env.ts';

/** Logs in the way a browser does (link → session) and returns a caller built from real request headers. */
type CallerOptions = {
  csrf?: string | null;
  hubPublicUrl?: string;
  hubListen?: Context['hubListen'];
  checkFolder?: Context['checkFolder'];
  agentBundle?: Context['agentBundle'];
  hubCa?: Context['hubCa'];
  attachmentsDir?: string;
  transcribe?: TranscribeConfig;
};

/** The agent bundle router tests run with (as if `npm run build:agent` had run), unless they pass their own. */
export const TEST_AGENT_BUNDLE = { version: '0.1.0-0badc0de', sha256: 'c'.repeat(64) };

export async function signedInCaller(db: Db, opts: CallerOptions = {}) {
  const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000' });
  const web = await redeemLoginToken({ db, token: new URL(link.url).searchParams.get('token') ?? '' });
  return { web, ...(await callerFor(db, web, opts)) };
}

/**
 * Router tests run without a node agent, so the node's folder check answers "fine, same path"
 * unless a test passes its own; the real check is tested against a real agent in
 * apps/node-agent/src/commands/validate-folder-on-node.test.ts and in the browser tests.
 */
export async function callerFor(db: Db, web: NewWebSessionDto | null, opts: CallerOptions = {}) {
  const headers = new Headers();
  if (web) headers.set('cookie', `other=1; ${SESSION_COOKIE}=${web.secret}`);
  const csrf = opts.csrf === undefined ? web?.csrfToken : opts.csrf;
  if (csrf) headers.set(CSRF_HEADER, csrf);
  const resHeaders = new Headers();
  const real = await createContext({
    db,
    headers,
    resHeaders,
    hubPublicUrl: opts.hubPublicUrl,
    hubListen: opts.hubListen,
    agentBundle: opts.agentBundle ?? (() => TEST_AGENT_BUNDLE),
    ...(opts.hubCa ? { hubCa: opts.hubCa } : {}),
    ...(opts.attachmentsDir ? { attachmentsDir: opts.attachmentsDir } : {}),
    ...(opts.transcribe ? { transcribe: opts.transcribe } : {}),
  });
  const ctx: Context = { ...real, checkFolder: opts.checkFolder ?? (async (_nodeId, folder) => ({ folder })) };
  return { caller: createCaller(ctx), resHeaders, ctx };
}
