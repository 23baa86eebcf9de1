import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeBin } from '@bria/testkit/cli-homes';
import { solidPng } from '@bria/testkit/png';
import { createRig, is, type Rig } from '../../test-support/test-rig.ts';
import { claudeDriver } from './claude-driver.ts';
import { claudePromptBox } from './screen.ts';
import { SessionHost } from './session-host.ts';
import { ExecutorError, type SessionIdentity } from './types.ts';

// `SessionHost.deliver` with images against the real Claude Code and the mock model (README.md,
// "Images"): the receipt, a follow-up during a running turn, and a path Claude does not attach.
let rig: Rig;
let a: SessionHost;
let id: SessionIdentity;
beforeAll(async () => {
  rig = await createRig('claude');
  a = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
  id = await a.start({ cwd: rig.work, sessionName: `images-${randomBytes(3).toString('hex')}` });
}, 60_000);
afterAll(async () => {
  await rig?.dispose();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A fresh PNG in a folder whose name has a space (Claude takes such paths too). */
function pngFile(name: string): { file: string; bytes: Buffer } {
  const bytes = solidPng({ seed: randomInt(1 << 24) });
  const file = join(rig.root, `${name} ${randomBytes(2).toString('hex')}.png`);
  writeFileSync(file, bytes);
  return { file, bytes };
}

describe('Claude Code: a delivery with images', () => {
  it('is accepted on the journal prompt with the placeholder, and the model gets the bytes as an image', async () => {
    const img = pngFile('first');
    const messageId = randomUUID();
    const r = await a.deliver({ messageId, text: 'what colour is it', images: [img.file] });
    expect(r.accepted).toBe(true);
    expect((await a.waitFor(is('final', messageId), 20_000)).text).toContain('what colour is it');
    const req = await rig.mock.waitForRequest((q) => q.kind === 'turn' && (q.userText ?? '').includes('what colour is it'), 5_000);
    expect(req.images).toEqual([{ mediaType: 'image/png', sha256: sha(img.bytes), bytes: img.bytes.length }]);
  });

  it('as a follow-up typed during a running turn: queued, its own receipt, the image in its request', async () => {
    const main = randomUUID();
    const follow = randomUUID();
    const img = pngFile('follow');
    expect((await a.deliver({ messageId: main, text: 'SLOW main before the image' })).accepted).toBe(true);
    await rig.mock.waitForRequest((q) => q.kind === 'turn' && q.userText === 'SLOW main before the image', 10_000);
    const r = await a.deliver({ messageId: follow, text: 'the queued image', images: [img.file] });
    expect(r.accepted).toBe(true);
    await a.waitFor(is('final', main), 20_000);
    expect((await a.waitFor(is('final', follow), 20_000)).text).toContain('the queued image');
    const req = await rig.mock.waitForRequest((q) => q.kind === 'turn' && (q.userText ?? '').includes('the queued image'), 5_000);
    expect(req.images?.map((i) => i.sha256)).toEqual([sha(img.bytes)]);
  });

  it('a path Claude does not attach is never submitted: refused as not_ready, the box left empty', async () => {
    const bad = join(rig.root, `not-an-image-${randomBytes(2).toString('hex')}.png`);
    writeFileSync(bad, 'plain text, no PNG inside');
    const before = rig.mock.requests.length;
    const err = await a.deliver({ messageId: randomUUID(), text: 'must not be sent', images: [bad] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutorError);
    expect((err as ExecutorError).code).toBe('not_ready');
    expect(claudePromptBox(await rig.tmux.capture(id.paneId))).toBe('');
    // Still usable; the refused text never reached the model.
    const ok = randomUUID();
    expect((await a.deliver({ messageId: ok, text: 'after the refused image' })).accepted).toBe(true);
    await a.waitFor(is('final', ok), 20_000);
    expect(rig.mock.requests.slice(before).some((q) => (q.userText ?? '').includes('must not be sent'))).toBe(false);
  });
});
