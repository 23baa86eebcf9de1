import { AppError } from '@bria/core/domain';
import { createDb, createNodeWithToken, type Db } from '@bria/core/db';
import { type AppRouter, appRouter, createContext, createLoginLink, CSRF_HEADER, redeemLoginToken, SESSION_COOKIE } from '@bria/core/trpc';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator } from '../i18n/catalog.ts';
import { errorText } from './error-text.ts';

// The dashboard's words for a refused call, through the real router, error formatter and client.

let tdb: TestDatabase;
let db: Db;
beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url, { max: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await tdb.drop();
});

const NODE_REASON = 'The folder does not exist on this computer.';

async function client() {
  const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000' });
  const web = await redeemLoginToken({ db, token: new URL(link.url).searchParams.get('token') ?? '' });
  const fetchLocal = async (input: RequestInfo | URL, init?: RequestInit) =>
    fetchRequestHandler({
      endpoint: '/api/trpc',
      req: new Request(input, init),
      router: appRouter,
      createContext: async ({ req, resHeaders }) => ({
        ...(await createContext({ db, headers: req.headers, resHeaders })),
        // The node's agent answers the folder check; this is its refusal as `validateFolderOnNode` raises it.
        checkFolder: async () => {
          throw new AppError('INVALID_INPUT', { message: 'folder refused by the node', userMessage: NODE_REASON });
        },
      }),
    });
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: 'http://127.0.0.1:3000/api/trpc',
        fetch: fetchLocal,
        headers: { cookie: `${SESSION_COOKIE}=${web.secret}`, [CSRF_HEADER]: web.csrfToken },
      }),
    ],
  });
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
const en = translator('en');

describe('errorText', () => {
  it("shows the service's reason for a refused folder, and the generic input text only for a malformed request", async () => {
    const { nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true });
    const trpc = await client();
    expect(errorText(await refusal(trpc.sessions.create.mutate({ nodeId, folder: '/no/such/folder' })), en)).toBe(NODE_REASON);
    // A request the input schema refuses has no sentence of a service behind it.
    expect(errorText(await refusal(trpc.sessions.create.mutate({ nodeId, folder: '' })), en)).toBe(en('refusal.INVALID_INPUT'));
  });
});
