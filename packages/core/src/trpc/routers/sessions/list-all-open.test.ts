import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { createCaller } from '../../app-router.ts';
import { createContextInner } from '../../context.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

const { db } = await fileDatabase();
const min = (n: number) => new Date(Date.parse('2026-03-01T12:00:00.000Z') + n * 60_000);
const nodes = { studio: '', laptop: '', gone: '' };

type Seed = {
  nodeId: string;
  executor?: 'claude' | 'codex';
  state?: 'Ready' | 'Running' | 'AwaitingRecovery' | 'Archived';
  created: number;
  native?: number;
  step?: number;
};
const seed = async (o: Seed) => {
  const s = await db.session.create({
    data: {
      id: randomUUID(),
      nodeId: o.nodeId,
      executor: o.executor ?? 'claude',
      folder: `/srv/${o.created}`,
      nativeSessionId: randomUUID(),
      state: o.state ?? 'Ready',
      createdAt: min(o.created),
      nativeLastActivity: o.native === undefined ? null : min(o.native),
      ...(o.step === undefined
        ? {}
        : {
            activityAt: min(o.step),
            activity: {
              kind: 'tool',
              toolName: 'Bash',
              subject: 'npm test',
              status: 'running',
              added: null,
              removed: null,
              reads: 0,
              steps: 3,
              nativeTurnId: null,
              turnStartedAt: min(o.step).toISOString(),
              at: min(o.step).toISOString(),
            },
          }),
    },
  });
  return s.id;
};

const ids: Record<string, string> = {};
beforeAll(async () => {
  nodes.studio = (await createNodeWithToken(db, { name: 'studio' })).nodeId;
  nodes.laptop = (await createNodeWithToken(db, { name: 'laptop' })).nodeId;
  nodes.gone = (await createNodeWithToken(db, { name: 'gone' })).nodeId;
  await db.node.update({ where: { id: nodes.studio }, data: { online: true } });
  // Started first, but its last message is the newest of all but one.
  ids.message = await seed({ nodeId: nodes.studio, created: 0, native: 50 });
  // Its current step is the newest thing anywhere.
  ids.step = await seed({ nodeId: nodes.laptop, executor: 'codex', state: 'Running', created: 10, native: 20, step: 60 });
  // Only a start time.
  ids.started = await seed({ nodeId: nodes.laptop, created: 30 });
  // Waits for its computer (recovery), and one that waits for an answer to its CLI's question.
  ids.recovery = await seed({ nodeId: nodes.studio, executor: 'codex', state: 'AwaitingRecovery', created: 5 });
  ids.asks = await seed({ nodeId: nodes.studio, state: 'Running', created: 1, native: 2 });
  await db.permissionPrompt.create({
    data: {
      id: randomUUID(),
      sessionId: ids.asks,
      generation: 1,
      kind: 'tool',
      toolName: 'Bash',
      toolInput: { command: 'rm -rf build' },
      receivedAt: min(2),
      expiresAt: min(60 * 24),
    },
  });
  // Not listed: archived, and the archive of a removed computer.
  await seed({ nodeId: nodes.studio, state: 'Archived', created: 70 });
  await seed({ nodeId: nodes.gone, state: 'Archived', created: 80 });
  await db.node.update({ where: { id: nodes.gone }, data: { removedAt: new Date() } });
});

describe('sessions.listAllOpen', () => {
  it('refuses without a sign-in', async () => {
    const e = await createCaller(createContextInner({ db }))
      .sessions.listAllOpen()
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(TRPCError);
    expect((e as TRPCError).code).toBe('UNAUTHORIZED');
  });

  it('returns every open session of every computer in one call, newest activity first, with computer and activity', async () => {
    const { caller } = await signedInCaller(db);
    const { sessions } = await caller.sessions.listAllOpen();
    expect(sessions.map((s) => s.id)).toEqual([ids.step, ids.message, ids.started, ids.recovery, ids.asks]);
    const step = sessions[0]!;
    expect(step).toMatchObject({
      nodeId: nodes.laptop,
      nodeName: 'laptop',
      nodeOnline: false,
      executor: 'codex',
      folder: '/srv/10',
      state: 'Running',
      promptWait: null,
    });
    expect(step.activity).toMatchObject({ kind: 'tool', toolName: 'Bash', subject: 'npm test' });
    expect(step.activityAt).toBe(min(60).toISOString());
    expect(sessions[1]).toMatchObject({ nodeName: 'studio', nodeOnline: true, lastActivityAt: min(50).toISOString(), activity: null });
    expect(sessions.find((s) => s.id === ids.asks)?.promptWait).toBe('answer');
  });

  it('filters by computer, agent and state group, alone and together', async () => {
    const { caller } = await signedInCaller(db);
    const of = async (input: Parameters<typeof caller.sessions.listAllOpen>[0]) => (await caller.sessions.listAllOpen(input)).sessions.map((s) => s.id);
    expect(await of({ nodeId: nodes.laptop })).toEqual([ids.step, ids.started]);
    expect(await of({ executor: 'codex' })).toEqual([ids.step, ids.recovery]);
    expect(await of({ group: 'working' })).toEqual([ids.step]);
    expect(await of({ group: 'ready' })).toEqual([ids.message, ids.started]);
    expect(await of({ group: 'waiting' })).toEqual([ids.recovery, ids.asks]);
    expect(await of({ nodeId: nodes.studio, executor: 'codex', group: 'waiting' })).toEqual([ids.recovery]);
    expect(await of({ nodeId: nodes.gone })).toEqual([]);
  });
});
