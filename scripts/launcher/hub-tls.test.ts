import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zServerEnv } from '../../packages/core/src/env.ts';
import { scratchDir } from '../../packages/testkit/src/scratch.ts';
import { launcherTls, tlsNotice } from './hub-tls.ts';

const env = (o: Record<string, string>) => zServerEnv.parse(o);

describe("npm start's choice of TLS for the hub port (issue 30)", () => {
  it('defaults to its own CA, made once and kept; the operator certificate wins; off is plain', async () => {
    const data = scratchDir('bria-launcher-tls-');
    const own = await launcherTls(env({ BRIA_TLS_NAMES: 'bria.example.net' }), data);
    expect(own).toMatchObject({ mode: 'own', made: 'ca', caFile: path.join(data, 'tls', 'ca.pem') });
    const again = await launcherTls(env({ BRIA_TLS_NAMES: 'bria.example.net' }), data);
    expect(again).toMatchObject({ mode: 'own', made: 'none' });
    expect(own.mode === 'own' && again.mode === 'own' && again.caSha256 === own.caSha256).toBe(true);
    expect(await launcherTls(env({ BRIA_TLS_CERT: '/c.pem', BRIA_TLS_KEY: '/k.pem' }), data)).toEqual({ mode: 'cert', certFile: '/c.pem', keyFile: '/k.pem' });
    expect(await launcherTls(env({ BRIA_HUB_TLS: 'off' }), data)).toEqual({ mode: 'off' });
  });

  it('warns loudly about a plain hub port on the network, not on loopback', () => {
    expect(tlsNotice({ mode: 'off' }, '0.0.0.0')).toMatch(/^WARNING: the agents' port listens on 0\.0\.0\.0 WITHOUT encryption \(BRIA_HUB_TLS=off\)/);
    expect(tlsNotice({ mode: 'off' }, '127.0.0.1')).toBe("The agents' port is plain ws:// (BRIA_HUB_TLS=off), on this computer only.");
  });
});
