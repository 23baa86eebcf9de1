import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { createCaller } from '../../app-router.ts';
import { createContextInner } from '../../context.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

const { db } = await fileDatabase();

describe('nodes.hubReach', () => {
  it('refuses without a sign-in', async () => {
    const e = await createCaller(createContextInner({ db }))
      .nodes.hubReach()
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(TRPCError);
    expect((e as TRPCError).code).toBe('UNAUTHORIZED');
  });

  it('says the hub listens only locally with the defaults, and names the variable that sets it', async () => {
    const { caller } = await signedInCaller(db);
    expect(await caller.nodes.hubReach()).toEqual({
      hubUrl: 'ws://127.0.0.1:3001/agent',
      reach: 'listens-locally',
      listenHost: '127.0.0.1',
      variable: 'BRIA_HOST',
      plaintext: false,
    });
    const { caller: hubOnly } = await signedInCaller(db, {
      hubPublicUrl: 'ws://192.168.1.20:3001/agent',
      hubListen: { host: '127.0.0.1', variable: 'BRIA_HUB_HOST', urlConfigured: false },
    });
    expect(await hubOnly.nodes.hubReach()).toMatchObject({ reach: 'listens-locally', variable: 'BRIA_HUB_HOST' });
  });

  it('is fine when it listens on the network and the command names a network address', async () => {
    const { caller } = await signedInCaller(db, {
      hubPublicUrl: 'ws://192.168.1.20:3001/agent',
      hubListen: { host: '0.0.0.0', variable: 'BRIA_HOST', urlConfigured: false },
    });
    // Plain ws:// to another computer happens only with BRIA_HUB_TLS=off: said as a warning.
    expect(await caller.nodes.hubReach()).toMatchObject({ reach: 'ok', hubUrl: 'ws://192.168.1.20:3001/agent', plaintext: true });
    const { caller: tls } = await signedInCaller(db, {
      hubPublicUrl: 'wss://192.168.1.20:3001/agent',
      hubListen: { host: '0.0.0.0', variable: 'BRIA_HOST', urlConfigured: false },
    });
    expect(await tls.nodes.hubReach()).toMatchObject({ reach: 'ok', plaintext: false });
    const { caller: local } = await signedInCaller(db, {
      hubPublicUrl: 'ws://localhost:3001/agent',
      hubListen: { host: '0.0.0.0', variable: 'BRIA_HOST', urlConfigured: false },
    });
    expect((await local.nodes.hubReach()).reach).toBe('local-address');
  });
});
