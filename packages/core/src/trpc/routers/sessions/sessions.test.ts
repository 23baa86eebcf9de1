import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { recordEvidence } from '../../../db/repos/evidence.ts';
import { resumeRecommendations } from '../../../services/sessions/list-archive.ts';
import { createCaller } from '../../app-router.ts';
import { createContextInner } from '../../context.ts';
import { MappedError } from '../../errors.ts';
import { AppError } from '../../../domain/errors.ts';
import { callerFor, signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

const { db } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true }));
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; appCode: string | null }> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(e)}`);
  return { code: e.code, appCode: e instanceof MappedError ? e.appCode : null };
}

const uuid = () => crypto.randomUUID();

describe('sessions, archive, settings, live: access', () => {
  it('refuses every new procedure without a session', async () => {
    const anon = createCaller(createContextInner({ db }));
    const { caller: cookieless } = await callerFor(db, null, { csrf: 'whatever' });
    const sessionId = uuid();
    for (const c of [anon, cookieless]) {
      const calls: Promise<unknown>[] = [
        c.sessions.listOpen({ nodeId }),
        c.sessions.get({ sessionId }),
        c.sessions.journal({ sessionId }),
        c.sessions.create({ nodeId, folder: '/tmp' }),
        c.sessions.stop({ sessionId }),
        c.sessions.close({ sessionId }),
        c.sessions.resume({ sessionId }),
        c.sessions.sendMessage({ sessionId, text: 'x', clientKey: 'abcdefgh' }),
        c.sessions.newSessionOptions({ nodeId }),
        c.sessions.resumeRecommendations({ nodeId, executor: 'claude', folder: '/tmp' }),
        c.archive.list({ nodeId }),
        c.settings.get(),
        c.settings.update({ lifetime: 'never' }),
        c.live.changes(),
        c.sessions.changes({ sessionId }),
        c.sessions.commit({ sessionId, message: 'm' }),
        c.sessions.push({ sessionId }),
        c.sessions.finish({ sessionId, merge: 'ff', remove: true }),
      ];
      for (const call of calls) expect((await refusal(call)).code).toBe('UNAUTHORIZED');
    }
    expect(await db.session.count()).toBe(0);
    expect((await db.settings.findUnique({ where: { id: 1 } }))?.lifetimeHours ?? 12).toBe(12);
  });

  it('refuses every mutation without the right CSRF token; queries still work', async () => {
    const { web } = await signedInCaller(db);
    const { caller } = await callerFor(db, web, { csrf: 'wrong' });
    const sessionId = uuid();
    const mutations: Promise<unknown>[] = [
      caller.sessions.create({ nodeId, folder: '/tmp' }),
      caller.sessions.stop({ sessionId }),
      caller.sessions.close({ sessionId }),
      caller.sessions.resume({ sessionId }),
      caller.sessions.sendMessage({ sessionId, text: 'x', clientKey: 'abcdefgh' }),
      caller.settings.update({ lifetime: 'never' }),
      caller.sessions.commit({ sessionId, message: 'm' }),
      caller.sessions.push({ sessionId }),
      caller.sessions.finish({ sessionId, merge: 'ff', remove: true, force: true }),
    ];
    for (const m of mutations) expect(await refusal(m)).toMatchObject({ code: 'FORBIDDEN' });
    expect(await db.session.count()).toBe(0);
    expect((await caller.sessions.listOpen({ nodeId })).sessions).toEqual([]);
    expect((await caller.settings.get()).lifetime).toBe('12h');
  });
});

describe('sessions router', () => {
  it("asks the node about the folder first and creates nothing when it refuses; the node's real path is kept", async () => {
    const asked: string[] = [];
    const { caller: refusing } = await signedInCaller(db, {
      checkFolder: async (_nodeId, folder) => {
        asked.push(folder);
        throw new AppError('INVALID_INPUT', { message: 'folder refused by the node', userMessage: 'The folder does not exist on this computer.' });
      },
    });
    const before = await db.session.count();
    const err = await refusal(refusing.sessions.create({ nodeId, executor: 'codex', folder: ' /srv/missing ' }));
    expect(err).toMatchObject({ code: 'BAD_REQUEST', appCode: 'INVALID_INPUT' });
    expect(asked).toEqual(['/srv/missing']);
    expect(await db.session.count()).toBe(before);
    const { caller: resolving } = await signedInCaller(db, { checkFolder: async () => ({ folder: '/srv/real-target' }) });
    await db.node.update({ where: { id: nodeId }, data: { enabledExecutors: ['claude', 'codex'] } });
    const created = await resolving.sessions.create({ nodeId, executor: 'codex', folder: '/srv/through-link' });
    expect((await db.session.findUniqueOrThrow({ where: { id: created.id } })).folder).toBe('/srv/real-target');
    await db.session.delete({ where: { id: created.id } });
  });

  it('creates (executor required when two are enabled, auto-picked when one), lists, shows and queues a message', async () => {
    const { caller } = await signedInCaller(db);
    expect(await refusal(caller.sessions.create({ nodeId, folder: '/srv/a' }))).toMatchObject({ code: 'BAD_REQUEST', appCode: 'INVALID_INPUT' });
    expect(await refusal(caller.sessions.create({ nodeId, executor: 'claude', folder: 'relative/path' }))).toMatchObject({ code: 'BAD_REQUEST' });
    await caller.nodes.setExecutors({ nodeId, executors: ['codex'] });
    expect(await refusal(caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/a' }))).toMatchObject({
      code: 'PRECONDITION_FAILED',
      appCode: 'EXECUTOR_DISABLED',
    });
    const options = await caller.sessions.newSessionOptions({ nodeId });
    expect(options.node.enabledExecutors).toEqual(['codex']);

    const created = await caller.sessions.create({ nodeId, folder: '  /srv/a  ' });
    expect(created).toMatchObject({ nodeId, executor: 'codex', folder: '/srv/a', state: 'Starting', acceptsMessages: true });
    const row = await db.session.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.state).toBe('Starting');
    expect(await db.agentCommand.count({ where: { sessionId: created.id, type: 'start_session' } })).toBe(1);
    await caller.nodes.setExecutors({ nodeId, executors: ['claude', 'codex'] });

    expect((await caller.sessions.listOpen({ nodeId })).sessions.map((s) => s.id)).toEqual([created.id]);
    expect((await caller.sessions.newSessionOptions({ nodeId })).recentFolders).toEqual(['/srv/a']);

    const sent = await caller.sessions.sendMessage({ sessionId: created.id, text: '# Hello\n<script>x</script>', clientKey: 'key-00000001' });
    expect(sent).toMatchObject({ duplicate: false, message: { seq: 1, status: 'pending' } });
    const again = await caller.sessions.sendMessage({ sessionId: created.id, text: '# Hello\n<script>x</script>', clientKey: 'key-00000001' });
    expect(again).toMatchObject({ duplicate: true, message: { id: sent.message.id } });
    expect(await db.message.count({ where: { sessionId: created.id } })).toBe(1);

    const view = await caller.sessions.get({ sessionId: created.id });
    expect(view.node).toEqual({ id: nodeId, name: 'box', online: true });
    expect(view.conversation.items).toMatchObject([{ text: '# Hello\n<script>x</script>', status: 'pending', source: 'web', finalText: null }]);
    expect(view.evidence).toMatchObject([{ event: 'create', actor: 'user', fromState: null, toState: 'Starting' }]);
    // What the queued message waits for, by the pump's own gates (issue 31, defect 4).
    expect(view.queueWait).toEqual({ messageId: sent.message.id, reason: 'session_not_ready' });
    await db.session.update({ where: { id: created.id }, data: { state: 'Ready', openPrompts: 1 } });
    expect((await caller.sessions.get({ sessionId: created.id })).queueWait).toEqual({ messageId: sent.message.id, reason: 'prompt_open' });
    await db.session.update({ where: { id: created.id }, data: { state: 'Starting', openPrompts: 0 } });
    expect(await refusal(caller.sessions.get({ sessionId: uuid() }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('maps lifecycle refusals: Stop only while running, stale versions refused, Close while idle (or to cancel a start), Resume archived', async () => {
    const { caller } = await signedInCaller(db);
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/b' });
    expect(await refusal(caller.sessions.stop({ sessionId: s.id, version: s.version }))).toMatchObject({ code: 'CONFLICT', appCode: 'ILLEGAL_TRANSITION' });
    await db.session.update({ where: { id: s.id }, data: { state: 'Stopping' } });
    expect(await refusal(caller.sessions.close({ sessionId: s.id }))).toMatchObject({ code: 'CONFLICT', appCode: 'ILLEGAL_TRANSITION' });

    await db.session.update({ where: { id: s.id }, data: { state: 'Running', version: 5 } });
    expect(await refusal(caller.sessions.stop({ sessionId: s.id, version: 4 }))).toMatchObject({ code: 'CONFLICT', appCode: 'STALE_BUTTON' });
    // Nothing is in flight, so the engine's rules finish the stop at once (Stopping → Ready).
    const stopped = await caller.sessions.stop({ sessionId: s.id, version: 5 });
    expect(stopped.version).toBeGreaterThan(5);
    const stopRow = await db.sessionEvidence.findFirstOrThrow({ where: { sessionId: s.id, event: 'stop_requested' } });
    expect(stopRow).toMatchObject({ actor: 'user', fromState: 'Running', toState: 'Stopping' });

    await db.session.update({ where: { id: s.id }, data: { state: 'Ready' } });
    const closing = await caller.sessions.close({ sessionId: s.id });
    expect(closing.state).toBe('Closing');
    expect(await db.agentCommand.count({ where: { sessionId: s.id, type: 'close_session' } })).toBe(1);

    await db.session.update({ where: { id: s.id }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } });
    expect(await refusal(caller.sessions.sendMessage({ sessionId: s.id, text: 'late', clientKey: 'key-00000002' }))).toMatchObject({
      code: 'PRECONDITION_FAILED',
      appCode: 'SESSION_NOT_ACCEPTING',
    });
    await db.node.update({ where: { id: nodeId }, data: { online: false } });
    expect(await refusal(caller.sessions.resume({ sessionId: s.id }))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', appCode: 'NODE_OFFLINE' });
    await db.node.update({ where: { id: nodeId }, data: { online: true } });
    expect((await caller.sessions.resume({ sessionId: s.id })).state).toBe('Resuming');
    const timeline = (await caller.sessions.get({ sessionId: s.id })).evidence.map((e) => e.event);
    expect(timeline).toEqual(expect.arrayContaining(['create', 'stop_requested', 'close_requested', 'resume_requested']));
  });

  it('shows usage history from the stored usage reports', async () => {
    const { caller } = await signedInCaller(db);
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/u' });
    for (const [i, used] of [1000, 5000, 12000].entries()) {
      await db.agentEvent.create({
        data: {
          nodeId,
          seq: BigInt(100 + i),
          type: 'usage',
          sessionId: s.id,
          payload: { sessionId: s.id, generation: 1, data: { inputTokens: used, outputTokens: 10 * i, contextWindowUsed: used / 200000 } },
        },
      });
    }
    await recordEvidence(db, {
      sessionId: s.id,
      event: 'session_ready',
      actor: 'agent',
      from: 'Starting',
      to: 'Ready',
      evidence: { pid: 4242 },
      at: new Date(),
    });
    const view = await caller.sessions.get({ sessionId: s.id });
    expect(view.usageHistory.map((p) => p.inputTokens)).toEqual([1000, 5000, 12000]);
    expect(view.evidence.at(-1)).toMatchObject({ event: 'session_ready', evidence: { pid: 4242 } });
  });
});

describe('settings router', () => {
  it('changes what the bot reads: lifetime, resume suggestions, allowed users', async () => {
    const { caller } = await signedInCaller(db);
    expect(await caller.settings.get()).toMatchObject({ lifetime: '12h', resumeRecommendations: false, allowedTelegramUsers: [] });
    const before = await resumeRecommendations({ db }, { nodeId, executor: 'claude', folder: '/srv/b' });
    expect(before).toEqual({ enabled: false, items: [] });

    const saved = await caller.settings.update({ lifetime: '48h', resumeRecommendations: true, allowedTelegramUsers: ['123456789012', '42'] });
    expect(saved).toMatchObject({ lifetime: '48h', resumeRecommendations: true, allowedTelegramUsers: ['123456789012', '42'] });
    expect(await db.settings.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({ lifetimeHours: 48, allowedTelegramUsers: [123456789012n, 42n] });
    // The bot's /new flow asks this same service: the step now exists.
    expect((await resumeRecommendations({ db }, { nodeId, executor: 'claude', folder: '/srv/b' })).enabled).toBe(true);
    expect((await caller.sessions.resumeRecommendations({ nodeId, executor: 'claude', folder: '/srv/b' })).enabled).toBe(true);
    const s = await caller.sessions.create({ nodeId, executor: 'codex', folder: '/srv/l' });
    expect(new Date(s.lifetimeDeadline ?? 0).getTime() - new Date(s.createdAt).getTime()).toBe(48 * 3600_000);

    expect(await refusal(caller.settings.update({ allowedTelegramUsers: ['-5'] }))).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await refusal(caller.settings.update({ lifetime: '3h' as never }))).toMatchObject({ code: 'BAD_REQUEST' });
    await caller.settings.update({ lifetime: 'never', resumeRecommendations: false });
    expect((await caller.sessions.create({ nodeId, executor: 'codex', folder: '/srv/l' })).lifetimeDeadline).toBeNull();
  });
});
