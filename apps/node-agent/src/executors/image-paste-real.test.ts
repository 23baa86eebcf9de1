import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { solidPng } from '@bria/testkit/png';
import { createRig, is, type Rig } from '../../test-support/test-rig.ts';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { NOT_ATTACHED } from './image-paste.ts';
import { claudePromptBox, codexComposer } from './screen.ts';
import { SessionHost } from './session-host.ts';
import { ExecutorError, type SessionIdentity } from './types.ts';

// `SessionHost.deliver` with images against the real CLIs and the mock models (README.md,
// "Images"): the receipt, a follow-up during a running turn, and a path the CLI does not attach.
const CLIS = {
  claude: { driver: claudeDriver, bin: claudeBin, box: claudePromptBox, empty: '' },
  codex: { driver: codexDriver, bin: codexBin, box: codexComposer, empty: 'Ask Codex to do anything' },
} as const;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A fresh PNG; for Claude its name has a space (Claude takes such paths, Codex does not). */
function pngFile(name: string): { file: string; bytes: Buffer } {
  const bytes = solidPng({ seed: randomInt(1 << 24) });
  const file = join(rig.root, `${name}${kind === 'claude' ? ' ' : '-'}${randomBytes(2).toString('hex')}.png`);
  writeFileSync(file, bytes);
  return { file, bytes };
}

let rig: Rig;
let kind: keyof typeof CLIS;
describe.each(Object.keys(CLIS) as (keyof typeof CLIS)[])('%s: a delivery with images', (cli) => {
  let a: SessionHost;
  let id: SessionIdentity;
  beforeAll(async () => {
    kind = cli;
    rig = await createRig(cli);
    a = new SessionHost({ driver: CLIS[cli].driver, tmux: rig.tmux, bin: CLIS[cli].bin, env: rig.env });
    id = await a.start({ cwd: rig.work, sessionName: `images-${randomBytes(3).toString('hex')}` });
  }, 60_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  it('is accepted on the journal prompt with the placeholder, and the model gets the bytes as an image', async () => {
    const img = pngFile('first');
    const messageId = randomUUID();
    const r = await a.deliver({ messageId, text: 'what colour is it', images: [img.file] });
    expect(r.accepted).toBe(true);
    expect((await a.waitFor(is('final', messageId), 20_000)).text).toContain('what colour is it');
    const req = await rig.mock.waitForRequest((q) => q.kind === 'turn' && (q.userText ?? '').includes('what colour is it'), 5_000);
    expect(req.images).toEqual([{ mediaType: 'image/png', sha256: sha(img.bytes), bytes: img.bytes.length }]);
  });

  it('a text starting with ! or / after an image reaches the model as text; nothing runs', async () => {
    for (const text of [`!touch ran-${cli}`, '/help me with this picture']) {
      const img = pngFile('bang');
      const messageId = randomUUID();
      const r = await a.deliver({ messageId, text, images: [img.file] });
      expect(r.accepted).toBe(true);
      await a.waitFor(is('completed', messageId), 20_000);
      const req = await rig.mock.waitForRequest((q) => q.kind === 'turn' && (q.userText ?? '').includes(text), 5_000);
      expect(req.images?.map((i) => i.sha256)).toEqual([sha(img.bytes)]);
    }
    expect(existsSync(join(rig.work, `ran-${cli}`))).toBe(false);
  });

  // Claude queues it as its own turn; Codex folds it into the running turn and sends both.
  it('as a follow-up typed during a running turn: accepted, answered, the image in its request', async () => {
    const main = randomUUID();
    const follow = randomUUID();
    const img = pngFile('follow');
    expect((await a.deliver({ messageId: main, text: 'SLOW main before the image' })).accepted).toBe(true);
    await rig.mock.waitForRequest((q) => q.kind === 'turn' && q.userText === 'SLOW main before the image', 10_000);
    const r = await a.deliver({ messageId: follow, text: 'the queued image', images: [img.file] });
    expect(r.accepted).toBe(true);
    await a.waitFor(is('completed', main), 20_000);
    await a.waitFor(is('completed', follow), 20_000);
    const req = await rig.mock.waitForRequest((q) => q.kind === 'turn' && (q.userText ?? '').includes('the queued image'), 5_000);
    expect(req.images?.map((i) => i.sha256)).toEqual([sha(img.bytes)]);
  });

  it('a path the CLI does not attach is never submitted: refused as not_ready, the box left empty', async () => {
    const bad = join(rig.root, `not-an-image-${randomBytes(2).toString('hex')}.png`);
    writeFileSync(bad, 'plain text, no PNG inside');
    const before = rig.mock.requests.length;
    const err = await a.deliver({ messageId: randomUUID(), text: 'must not be sent', images: [bad] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutorError);
    expect((err as ExecutorError).code).toBe('not_ready');
    // Marked, so the agent types the message with the file named as a path instead (deliver-message.ts).
    expect((err as ExecutorError).details).toEqual(NOT_ATTACHED);
    expect(CLIS[cli].box(await rig.tmux.capture(id.paneId))).toBe(CLIS[cli].empty);
    // Still usable; the refused text never reached the model.
    const ok = randomUUID();
    expect((await a.deliver({ messageId: ok, text: 'after the refused image' })).accepted).toBe(true);
    await a.waitFor(is('final', ok), 20_000);
    expect(rig.mock.requests.slice(before).some((q) => (q.userText ?? '').includes('must not be sent'))).toBe(false);
  });
});
