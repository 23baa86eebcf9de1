import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../testkit/src/postgres.ts';
import { createDb, type Db } from '../../db/client.ts';
import { createNodeWithToken } from '../../db/repos/nodes.ts';
import { setPermissionMode } from '../nodes/index.ts';
import { createSession, getSession, resumeSession } from './index.ts';

let tdb: TestDatabase;
let db: Db;
let nodeId: string;
beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  nodeId = (await createNodeWithToken(db, { name: 'n' })).nodeId;
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
});
afterAll(async () => {
  await db.$disconnect();
  await tdb.drop();
});

async function startPayload(sessionId: string): Promise<unknown> {
  return (await db.agentCommand.findFirstOrThrow({ where: { sessionId, type: 'start_session' } })).payload;
}

describe('permission mode and model chosen at creation', () => {
  it('without a choice: the node default of the executor, no model', async () => {
    const c = await createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/a' });
    const x = await createSession({ db }, { nodeId, executor: 'codex', folder: '/srv/a' });
    expect([c.permissionMode, c.model, x.permissionMode, x.model]).toEqual(['default', null, 'workspace-write', null]);
    expect(await startPayload(x.id)).toMatchObject({ permissionMode: 'workspace-write' });
    expect(await startPayload(x.id)).not.toHaveProperty('model');
  });

  it('the chosen mode and model are stored, carried by the start command and written in the evidence', async () => {
    const s = await createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/b', permissionMode: 'plan', model: ' opus ' });
    expect([s.permissionMode, s.model]).toEqual(['plan', 'opus']);
    expect(await db.session.findUniqueOrThrow({ where: { id: s.id }, select: { permissionMode: true, model: true } })).toEqual({
      permissionMode: 'plan',
      model: 'opus',
    });
    expect(await startPayload(s.id)).toMatchObject({ executor: 'claude', permissionMode: 'plan', model: 'opus' });
    const ev = await db.sessionEvidence.findFirstOrThrow({ where: { sessionId: s.id, event: 'create' } });
    expect(ev.evidence).toMatchObject({ permissionMode: 'plan', model: 'opus' });
  });

  it('the node default is set per executor and preselected; a bad default is refused', async () => {
    await setPermissionMode({ db, nodeId, executor: 'codex', mode: 'read-only' });
    await setPermissionMode({ db, nodeId, executor: 'claude', mode: 'acceptEdits' });
    expect((await createSession({ db }, { nodeId, executor: 'codex', folder: '/srv/c' })).permissionMode).toBe('read-only');
    expect((await createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/c' })).permissionMode).toBe('acceptEdits');
    await expect(setPermissionMode({ db, nodeId, executor: 'codex', mode: 'plan' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(setPermissionMode({ db, nodeId, executor: 'claude', mode: 'accept-edits' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses a mode of the other executor, an unknown or old value, a bad model, and a mode the node cannot start, writing nothing', async () => {
    const before = await db.session.count();
    for (const permissionMode of ['read-only', 'full-access', 'accept-edits', 'auto', '']) {
      await expect(createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/d', permissionMode })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        userMessage: 'sessions.mode_invalid',
      });
    }
    await expect(createSession({ db }, { nodeId, executor: 'codex', folder: '/srv/d', permissionMode: 'bypassPermissions' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    for (const model of ['two words', 'x;id', '$(id)', '-m', 'a'.repeat(101)]) {
      await expect(createSession({ db }, { nodeId, executor: 'codex', folder: '/srv/d', model })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        userMessage: 'sessions.model_invalid',
      });
    }
    await db.node.update({ where: { id: nodeId }, data: { unavailableModes: ['claude:bypassPermissions'] } });
    await expect(createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/d', permissionMode: 'bypassPermissions' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      userMessage: 'sessions.mode_unavailable.claude',
    });
    await expect(setPermissionMode({ db, nodeId, executor: 'claude', mode: 'bypassPermissions' })).rejects.toMatchObject({
      userMessage: 'sessions.mode_unavailable.claude',
    });
    expect(await db.session.count()).toBe(before);
    await db.node.update({ where: { id: nodeId }, data: { unavailableModes: [] } });
    expect((await createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/d', permissionMode: 'bypassPermissions' })).permissionMode).toBe(
      'bypassPermissions',
    );
  });

  it('a resume carries the same mode and model', async () => {
    const s = await createSession({ db }, { nodeId, executor: 'codex', folder: '/srv/r', permissionMode: 'full-access', model: 'gpt-6.2-sol' });
    await db.session.update({
      where: { id: s.id },
      data: { state: 'Archived', nativeSessionId: '01a23651-d848-7b63-9a2f-558796e706b7', archivedAt: new Date() },
    });
    await resumeSession({ db }, { sessionId: s.id });
    const cmd = await db.agentCommand.findFirstOrThrow({ where: { sessionId: s.id, type: 'resume_session' } });
    expect(cmd.payload).toMatchObject({ executor: 'codex', permissionMode: 'full-access', model: 'gpt-6.2-sol' });
  });

  it('a session stored with an old value reads as what it launched', async () => {
    const s = await createSession({ db }, { nodeId, executor: 'claude', folder: '/srv/e' });
    await db.session.update({ where: { id: s.id }, data: { permissionMode: 'full-access' } });
    expect((await getSession({ db }, { sessionId: s.id })).permissionMode).toBe('bypassPermissions');
  });
});
