import { TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../packages/core/src/trpc/app-router.ts';
import { signedInCaller } from '../../packages/core/src/trpc/test-support.ts';
import { fileDatabase } from '../../packages/testkit/src/file-database.ts';
import { count, fuzzCounts, fuzzParams, fuzzTimeoutMs } from './fuzz-config.ts';

/**
 * Every tRPC procedure (enumerated from the app router, subscriptions aside) with random input, as a
 * signed-in dashboard user: each call returns, or fails with a typed error (BAD_REQUEST, NOT_FOUND,
 * CONFLICT…), never INTERNAL_SERVER_ERROR (a 500) and never anything but a TRPCError.
 */
const { db } = await fileDatabase();
afterAll(async () => {
  await db.$disconnect();
});

type Proc = { _def: { type: 'query' | 'mutation' | 'subscription' } };
const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Proc> } })._def.procedures)
  .filter(([, p]) => p._def.type !== 'subscription')
  .map(([path]) => path)
  .sort();

const KEYS = [
  'sessionId',
  'nodeId',
  'promptId',
  'text',
  'folder',
  'executor',
  'name',
  'cursor',
  'limit',
  'id',
  'token',
  'decision',
  'answers',
  'message',
  'model',
  'permissionMode',
  'query',
  'days',
  'source',
];
const value = fc.oneof(
  fc.uuid(),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('claude', 'codex', 'allow', 'deny', '/tmp', '/', '../..', 'default'),
  fc.integer({ min: 100_000, max: 1_300_000 }).map((n) => 'Ж'.repeat(n)),
  fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 }), { maxKeys: 30 }),
);
const input = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

async function call(path: string, arg: unknown): Promise<unknown> {
  const { caller } = await signedInCaller(db);
  let fn: unknown = caller;
  for (const part of path.split('.')) fn = (fn as Record<string, unknown>)[part];
  return (fn as (i: unknown) => Promise<unknown>)(arg);
}

describe('fuzz: every tRPC input', () => {
  it(
    `${procedures.length} procedures: random input gives a result or a typed error, never a 500`,
    async () => {
      expect(procedures.length).toBeGreaterThan(20);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...procedures), input, async (path, arg) => {
          let outcome = 'ok';
          try {
            await Promise.race([
              call(path, arg),
              new Promise((_, reject) => setTimeout(() => reject(new Error(`${path} did not answer in 60 s`)), 60_000).unref()),
            ]);
          } catch (e) {
            expect(e, `${path}: ${String(e)}`).toBeInstanceOf(TRPCError);
            const code = (e as TRPCError).code;
            expect(code, `${path} answered a 500: ${String((e as TRPCError).cause ?? e)}`).not.toBe('INTERNAL_SERVER_ERROR');
            outcome = code;
          }
          count(`${outcome}`);
        }),
        fuzzParams('tRPC inputs'),
      );
      console.log(`[fuzz] tRPC outcomes ${JSON.stringify(fuzzCounts)}`);
    },
    fuzzTimeoutMs(),
  );
});
