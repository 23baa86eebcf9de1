import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createDb, createNodeWithToken, type Db } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { appRouter, createLoginLink, CSRF_HEADER, redeemLoginToken, SESSION_COOKIE, type NewWebSessionDto } from '@bria/core/trpc';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { buildAgentBundle } from '../../scripts/build-agent.ts';
import { scratchDir } from '@bria/testkit/scratch';
import { dbFingerprint } from './support.ts';

/**
 * Every procedure of the dashboard's tRPC router, found by walking the router itself (a procedure
 * added later is covered without touching this file), is called through the real route handler with
 * each kind of bad credential. The only procedures allowed to answer without a session are listed
 * in PUBLIC, and they must reveal nothing.
 */
const PUBLIC: Record<string, unknown> = { 'auth.me': { user: null } };

type Handler = (req: Request) => Promise<Response>;
let tdb: TestDatabase;
let db: Db;
let hub: Hub;
let trpc: Handler;
let health: () => Promise<Response>;
const ids = { nodeId: '', tokenId: '', sessionId: '00000000-0000-4000-8000-000000000001' };
let owner: NewWebSessionDto;
let other: NewWebSessionDto;
let expired: NewWebSessionDto;
let loggedOut: NewWebSessionDto;

const tokenOf = (url: string) => new URL(url).searchParams.get('token') ?? '';
async function signIn(opts: { telegramUserId?: number; now?: Date } = {}): Promise<NewWebSessionDto> {
  const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000', ...opts });
  return redeemLoginToken({ db, token: tokenOf(link.url), ...(opts.now ? { now: opts.now } : {}) });
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 1000, log: createLogger({ name: 't', level: 'silent' }) });
  await hub.start();
  // The dashboard's own route modules, configured the way the launcher configures `next start`.
  vi.stubEnv('DATABASE_URL', tdb.url);
  vi.stubEnv('BRIA_HUB_HEALTH_URL', `http://127.0.0.1:${hub.port}/health`);
  vi.stubEnv('LOG_LEVEL', 'silent');
  // The launcher builds the agent bundle and names its folder ("Add a computer" pins it).
  const bundleDir = scratchDir('bria-sec-bundle-');
  await buildAgentBundle({ outDir: bundleDir });
  vi.stubEnv('BRIA_AGENT_BUNDLE_DIR', bundleDir);
  trpc = ((await import('../../apps/web/src/app/api/trpc/[trpc]/route.ts')) as { POST: Handler }).POST;
  health = ((await import('../../apps/web/src/app/api/health/route.ts')) as { GET: () => Promise<Response> }).GET;

  const node = await createNodeWithToken(db, { name: 'secret-laptop-name' });
  ids.nodeId = node.nodeId;
  ids.tokenId = (await db.agentToken.findFirstOrThrow({ where: { nodeId: node.nodeId } })).id;
  owner = await signIn();
  other = await signIn({ telegramUserId: 4242 });
  expired = await signIn({ now: new Date(Date.now() - 31 * 24 * 3600_000) });
  loggedOut = await signIn();
  const out = await trpc(request('auth.logout', 'mutation', undefined, { cookie: loggedOut.secret, csrf: loggedOut.csrfToken }));
  expect(out.status).toBe(200);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await hub?.stop();
  await db?.$disconnect();
  await tdb?.drop();
});

function request(path: string, type: string, input: unknown, cred: { cookie?: string; csrf?: string }): Request {
  const headers = new Headers({ 'content-type': 'application/json', host: '127.0.0.1:3000' });
  if (cred.cookie !== undefined) headers.set('cookie', `theme=dark; ${SESSION_COOKIE}=${cred.cookie}`);
  if (cred.csrf !== undefined) headers.set(CSRF_HEADER, cred.csrf);
  const base = `http://127.0.0.1:3000/api/trpc/${path}`;
  if (type === 'mutation') return new Request(base, { method: 'POST', headers, body: JSON.stringify(input ?? null) });
  const q = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  return new Request(base + q, { method: 'GET', headers });
}

/** An input the procedure would accept, built from its schema with real ids, so only the credential is wrong. */
function plausible(schema: Record<string, unknown> | undefined, key = ''): unknown {
  if (!schema) return undefined;
  const s = schema as {
    type?: string;
    properties?: Record<string, Record<string, unknown>>;
    enum?: unknown[];
    items?: Record<string, unknown>;
    minItems?: number;
    minimum?: number;
    format?: string;
    anyOf?: Record<string, unknown>[];
  };
  if (s.anyOf?.[0]) return plausible(s.anyOf[0], key);
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, plausible(v, k)]));
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => plausible(s.items, key));
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'string':
      if (/node/i.test(key)) return ids.nodeId;
      if (/token/i.test(key)) return ids.tokenId;
      if (s.format === 'uuid' || /id$/i.test(key)) return ids.sessionId;
      return 'intruder';
    default:
      return undefined;
  }
}

interface Proc {
  path: string;
  type: string;
  input: unknown;
}
function procedures(): Proc[] {
  const all = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string; inputs: z.ZodType[] } }> } })._def.procedures;
  return Object.entries(all).map(([path, p]) => {
    const schema = p._def.inputs[0];
    return {
      path,
      type: p._def.type,
      input: schema ? plausible(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>) : undefined,
    };
  });
}

interface Case {
  name: string;
  cred: () => { cookie?: string; csrf?: string };
  expect: 'unauthorized' | 'csrf';
}
const CASES: Case[] = [
  { name: 'no credential', cred: () => ({}), expect: 'unauthorized' },
  { name: 'a wrong cookie (well-formed, with a real CSRF token)', cred: () => ({ cookie: 'A'.repeat(43), csrf: owner.csrfToken }), expect: 'unauthorized' },
  { name: 'a garbage cookie', cred: () => ({ cookie: 'x\'; drop table "Node"; --', csrf: owner.csrfToken }), expect: 'unauthorized' },
  { name: 'the CSRF token presented as the cookie', cred: () => ({ cookie: owner.csrfToken, csrf: owner.csrfToken }), expect: 'unauthorized' },
  { name: 'an expired session', cred: () => ({ cookie: expired.secret, csrf: expired.csrfToken }), expect: 'unauthorized' },
  { name: 'a logged-out (revoked) session', cred: () => ({ cookie: loggedOut.secret, csrf: loggedOut.csrfToken }), expect: 'unauthorized' },
  { name: "a live session with another user's CSRF token", cred: () => ({ cookie: owner.secret, csrf: other.csrfToken }), expect: 'csrf' },
  { name: 'a live session without the CSRF header', cred: () => ({ cookie: owner.secret }), expect: 'csrf' },
];

describe('dashboard API credentials', () => {
  it('the router has procedures to check, and only the listed ones are public', () => {
    const paths = procedures().map((p) => p.path);
    expect(paths.length).toBeGreaterThanOrEqual(6);
    expect(paths).toEqual(expect.arrayContaining(Object.keys(PUBLIC)));
  });

  for (const c of CASES) {
    it(`every procedure refuses ${c.name}, and nothing is written`, async () => {
      const before = await dbFingerprint(tdb.url);
      const seen: string[] = [];
      for (const p of procedures()) {
        const res = await trpc(request(p.path, p.type, p.input, c.cred()));
        // Reads carry no CSRF check (they change nothing): a live session gets past the door (the
        // answer may still be 404 for the made-up id; a subscription starts streaming and is cut).
        if (c.expect === 'csrf' && p.type !== 'mutation') {
          expect([401, 403], p.path).not.toContain(res.status);
          await res.body?.cancel();
          continue;
        }
        const body = await res.text();
        const isPublic = p.path in PUBLIC;
        if (isPublic && c.expect === 'unauthorized') {
          expect(res.status, p.path).toBe(200);
          expect(JSON.parse(body).result.data, p.path).toEqual(PUBLIC[p.path]);
          continue;
        }
        const want = c.expect === 'csrf' ? { status: 403, code: 'FORBIDDEN' } : { status: 401, code: 'UNAUTHORIZED' };
        expect(res.status, `${p.path} (${body.slice(0, 200)})`).toBe(want.status);
        const err = JSON.parse(body).error as { data: { code: string; stack?: unknown } };
        expect(err.data.code, p.path).toBe(want.code);
        expect(err.data.stack, p.path).toBeUndefined();
        for (const secret of ['secret-laptop-name', ids.nodeId, ids.tokenId, owner.secret, owner.csrfToken]) expect(body, p.path).not.toContain(secret);
        seen.push(p.path);
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(await dbFingerprint(tdb.url)).toEqual(before);
    });
  }

  it('the same calls work with the right credential (the refusals above are about the credential)', async () => {
    const list = await trpc(request('nodes.list', 'query', undefined, { cookie: owner.secret }));
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('secret-laptop-name');
    const before = await db.node.count();
    const add = await trpc(request('nodes.addComputer', 'mutation', { name: 'allowed' }, { cookie: owner.secret, csrf: owner.csrfToken }));
    expect(add.status).toBe(200);
    expect(await db.node.count()).toBe(before + 1);
  });

  it('GET /api/health tells liveness and counts, nothing else (it reads no cookie, so none can change that)', async () => {
    const res = await health();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['db', 'hub', 'nodesOnline', 'nodesTotal', 'ok']);
    expect(body).toEqual({ ok: true, db: true, hub: true, nodesOnline: 0, nodesTotal: await db.node.count() });
    for (const secret of ['secret-laptop-name', ids.nodeId, ids.tokenId, tdb.url, tdb.name, String(hub.port)]) expect(text).not.toContain(secret);
  });
});
