import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { createDb } from '../db/client.ts';
import { AppError } from '../domain/errors.ts';
import { GENERIC_INTERNAL_MESSAGE, MappedError, toTRPCError } from './errors.ts';
import { signedInCaller } from './test-support.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';

const { db } = await fileDatabase();

const wrap = (cause: unknown) => toTRPCError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause }));

describe('error mapping', () => {
  it('maps AppError codes and keeps only the safe user message', () => {
    const e = wrap(new AppError('NODE_OFFLINE', { message: 'node 123 at /secret/path', userMessage: 'nodes.offline' }));
    expect(e).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'nodes.offline', appCode: 'NODE_OFFLINE' });
    expect(wrap(new AppError('INTERNAL', { message: 'db password leaked', userMessage: 'x' })).message).toBe(GENERIC_INTERNAL_MESSAGE);
  });

  it('maps a real unique violation to CONFLICT and a missing row to NOT_FOUND', async () => {
    await db.dashboardUser.create({ data: { id: crypto.randomUUID(), name: 'a', telegramUserId: 7n } });
    const dup = await db.dashboardUser.create({ data: { id: crypto.randomUUID(), name: 'b', telegramUserId: 7n } }).catch((x: unknown) => x);
    expect(wrap(dup)).toMatchObject({ code: 'CONFLICT', appCode: 'CONFLICT' });
    const missing = await db.node.update({ where: { id: crypto.randomUUID() }, data: { name: 'z' } }).catch((x: unknown) => x);
    expect(wrap(missing)).toMatchObject({ code: 'NOT_FOUND', appCode: 'NOT_FOUND' });
  });

  it('passes deliberate tRPC errors through and hides unknown ones', () => {
    const own = new TRPCError({ code: 'FORBIDDEN', message: 'auth.csrf' });
    expect(toTRPCError(own)).toBe(own);
    const hidden = wrap(new Error('connect ECONNREFUSED postgres://bria:pw@db'));
    expect(hidden).toBeInstanceOf(MappedError);
    expect(hidden).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: GENERIC_INTERNAL_MESSAGE });
  });

  it('a database failure inside a procedure reaches the caller as a generic internal error', async () => {
    const { caller, ctx } = await signedInCaller(db);
    const dead = createDb('postgresql://bria:secretpw@127.0.0.1:1/nowhere');
    ctx.db = dead;
    const e = await caller.nodes.list().catch((x: unknown) => x);
    await dead.$disconnect();
    expect(e).toBeInstanceOf(TRPCError);
    expect((e as TRPCError).code).toBe('INTERNAL_SERVER_ERROR');
    expect((e as TRPCError).message).toBe(GENERIC_INTERNAL_MESSAGE);
    expect((e as TRPCError).message).not.toContain('secretpw');
  });
});
