import { describe, expect, it } from 'vitest';
import { hubReach, isLoopbackHost } from './hub-reach.ts';

describe('can another computer reach the hub with the shown command', () => {
  it.each([
    // npm start's defaults: listens on 127.0.0.1, the command says 127.0.0.1.
    { listenHost: '127.0.0.1', hubUrl: 'ws://127.0.0.1:3001/agent', hubUrlConfigured: false, want: 'listens-locally' },
    // BRIA_PUBLIC_URL names the LAN address, but the hub still listens on loopback only.
    { listenHost: '127.0.0.1', hubUrl: 'ws://192.168.1.20:3001/agent', hubUrlConfigured: false, want: 'listens-locally' },
    { listenHost: 'localhost', hubUrl: 'ws://box.lan:3001/agent', hubUrlConfigured: false, want: 'listens-locally' },
    { listenHost: '::1', hubUrl: 'ws://[::1]:3001/agent', hubUrlConfigured: false, want: 'listens-locally' },
    // An explicit BRIA_HUB_PUBLIC_URL on another host: a proxy or tunnel forwards to the local hub.
    { listenHost: '127.0.0.1', hubUrl: 'wss://bria.example.net/agent', hubUrlConfigured: true, want: 'ok' },
    { listenHost: '127.0.0.1', hubUrl: 'ws://127.0.0.1:3001/agent', hubUrlConfigured: true, want: 'listens-locally' },
    // Listens everywhere, but the command would send the other computer to itself.
    { listenHost: '0.0.0.0', hubUrl: 'ws://localhost:3001/agent', hubUrlConfigured: false, want: 'local-address' },
    { listenHost: '0.0.0.0', hubUrl: 'ws://192.168.1.20:3001/agent', hubUrlConfigured: false, want: 'ok' },
    { listenHost: '192.168.1.20', hubUrl: 'wss://box.lan:3001/agent', hubUrlConfigured: false, want: 'ok' },
    { listenHost: '0.0.0.0', hubUrl: 'not a url', hubUrlConfigured: true, want: 'local-address' },
  ] as const)('$listenHost + $hubUrl (configured: $hubUrlConfigured) → $want', ({ want, ...facts }) => {
    expect(hubReach(facts)).toBe(want);
  });

  it('knows loopback names and addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', 'app.localhost', '::1', '[::1]']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '192.168.1.20', '::', 'box.lan', '127.example.com', 'localhost.example.com']) expect(isLoopbackHost(h)).toBe(false);
  });
});
