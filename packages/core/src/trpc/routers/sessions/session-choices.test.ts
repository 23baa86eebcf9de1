import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { MappedError } from '../../errors.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

const { db } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true }));
  // As the hub stores it from the hello of an agent running as root.
  await db.node.update({ where: { id: nodeId }, data: { online: true, unavailableModes: ['claude:bypassPermissions'] } });
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; appCode: string | null; message: string }> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(e)}`);
  return { code: e.code, appCode: e instanceof MappedError ? e.appCode : null, message: e.message };
}

describe('dashboard: permission mode and model at creation', () => {
  it('the form gets the node defaults and what cannot start; the node settings change a default', async () => {
    const { caller } = await signedInCaller(db);
    const opts = await caller.sessions.newSessionOptions({ nodeId });
    expect(opts.node).toMatchObject({ defaultModes: { claude: 'default', codex: 'workspace-write' }, unavailableModes: ['claude:bypassPermissions'] });
    expect(await caller.nodes.setPermissionMode({ nodeId, executor: 'codex', mode: 'read-only' })).toEqual({ nodeId, executor: 'codex', mode: 'read-only' });
    expect((await caller.sessions.newSessionOptions({ nodeId })).node.defaultModes.codex).toBe('read-only');
    expect((await caller.nodes.list()).nodes.find((n) => n.id === nodeId)).toMatchObject({ defaultModes: { claude: 'default', codex: 'read-only' } });
    expect(await refusal(caller.nodes.setPermissionMode({ nodeId, executor: 'claude', mode: 'bypassPermissions' }))).toMatchObject({
      code: 'BAD_REQUEST',
      appCode: 'INVALID_INPUT',
    });
  });

  it('create stores the choice and the session page shows it; the node default applies when none is sent', async () => {
    const { caller } = await signedInCaller(db);
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/web', permissionMode: 'acceptEdits', model: 'sonnet' });
    expect([s.permissionMode, s.model]).toEqual(['acceptEdits', 'sonnet']);
    expect((await caller.sessions.get({ sessionId: s.id })).session).toMatchObject({ permissionMode: 'acceptEdits', model: 'sonnet' });
    const d = await caller.sessions.create({ nodeId, executor: 'codex', folder: '/srv/web', model: '' });
    expect([d.permissionMode, d.model]).toEqual(['read-only', null]);
    expect((await caller.sessions.listOpen({ nodeId })).sessions.map((x) => x.permissionMode).sort()).toEqual(['acceptEdits', 'read-only']);
  });

  it("create refuses a mode that cannot start, another executor's mode and a bad model, creating nothing", async () => {
    const { caller } = await signedInCaller(db);
    const before = await db.session.count();
    expect(await refusal(caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/x', permissionMode: 'bypassPermissions' }))).toMatchObject({
      code: 'BAD_REQUEST',
      appCode: 'INVALID_INPUT',
    });
    expect(await refusal(caller.sessions.create({ nodeId, executor: 'codex', folder: '/srv/x', permissionMode: 'plan' }))).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(await refusal(caller.sessions.create({ nodeId, executor: 'codex', folder: '/srv/x', model: 'gpt; rm -rf ~' }))).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(await db.session.count()).toBe(before);
  });
});
