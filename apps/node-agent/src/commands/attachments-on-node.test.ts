import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessage } from '../../../../packages/core/src/services/sessions/index.ts';
import { MAX_ATTACHMENT_BYTES } from '../../../../packages/core/src/protocol/index.ts';
import { insertSessionCommand } from '../../../../packages/core/src/db/repos/sessions.ts';
import { startSystem, type System, waitUntil } from '../../../../packages/testkit/src/system.ts';

// The whole path of a file sent with a message: stored on the server, carried in the `deliver`
// command to a real agent, written into the session's folder there, and named to the real Claude.
let sys: System;
let sessionId: string;
let native: string;
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude'], slowChunks: 1, slowChunkMs: 10 });
  await sys.startAgent();
  const s = await sys.createSession('claude', sys.folder('attachments'));
  sessionId = s.id;
  native = (await sys.waitState(s.id, 'Ready')).nativeSessionId!;
}, 90_000);
afterAll(async () => {
  await sys?.dispose();
});

/** Stores a file as the bot does (a server folder plus its SHA-256) and returns the stored reference. */
function serverFile(name: string, bytes: Buffer, sha256 = createHash('sha256').update(bytes).digest('hex')) {
  const dir = path.join(sys.root, 'server-attachments', sessionId);
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, `${sha256}-${name.replace(/\//g, '_')}`);
  writeFileSync(p, bytes);
  return { name, mime: 'image/png', path: p, sizeBytes: bytes.length, sha256 };
}
const folder = () => path.join(sys.agentDir, 'attachments', sessionId);
const list = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

describe('attachments reach the CLI on its node', () => {
  it('lands byte-exact in the session folder and the CLI receives its path after the caption', async () => {
    // Not a PNG past its first bytes: named as a path (a real image reaches Claude as an image, images-on-node.test.ts).
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]), Buffer.alloc(40_000, 7)]);
    const r = await acceptMessage(sys.deps, { sessionId, text: 'what is in this file', source: 'telegram', attachments: [serverFile('../../pic.png', bytes)] });
    const done = await sys.waitMessages(sessionId, (st) => st.every((s) => s === 'completed'), 60_000);
    expect(done.find((m) => m.id === r.message.id)?.finalText).toMatch(/MOCK-REPLY/);
    // The hostile name is reduced to one segment inside the session folder.
    const file = path.join(folder(), `${r.message.id}-_.._pic.png`);
    expect(list(folder())).toEqual([path.basename(file)]);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    const texts = sys.turns('claude', native).map((t) => t.userText ?? '');
    expect(texts.some((t) => t.includes('what is in this file') && t.includes(`[Attached file: ${file} (image/png, 39 KB)]`))).toBe(true);
  }, 90_000);

  it('a stored file whose bytes no longer match its checksum fails as an attachment problem; nothing is typed', async () => {
    const before = sys.turns('claude', native).length;
    const ref = serverFile('tampered.png', Buffer.from('original bytes'));
    writeFileSync(ref.path, 'tampered bytes');
    const r = await acceptMessage(sys.deps, { sessionId, text: 'never typed', source: 'telegram', attachments: [ref] });
    const msgs = await sys.waitMessages(sessionId, (st) => st.at(-1) === 'failed', 30_000);
    const m = msgs.find((x) => x.id === r.message.id)!;
    expect(m.status).toBe('failed');
    expect(m.outcomeDetail).toBe('attachment could not be read');
    // The chat is told it was the attachment (the system's chat follows this node).
    expect((await sys.outbox(sessionId)).filter((o) => o.kind === 'attachment_failed').map((o) => (o.payload as { messageId: string }).messageId)).toEqual([
      r.message.id,
    ]);
    expect(list(folder()).some((f) => f.startsWith(r.message.id))).toBe(false);
    // Still usable, and the failed one never reached the CLI.
    await acceptMessage(sys.deps, { sessionId, text: 'after the bad file', source: 'telegram' });
    await sys.waitMessages(sessionId, (st) => st.at(-1) === 'completed', 60_000);
    const texts = sys
      .turns('claude', native)
      .slice(before)
      .map((t) => t.userText ?? '');
    expect(texts.some((t) => t.includes('never typed'))).toBe(false);
    expect(texts.some((t) => t.includes('after the bad file'))).toBe(true);
    expect((await sys.session(sessionId)).state).toBe('Ready');
  }, 90_000);

  it('a file at the limit beside a text too long for one frame is failed as an attachment problem, not sent', async () => {
    const ref = serverFile('full.bin', Buffer.alloc(MAX_ATTACHMENT_BYTES, 1));
    // 200 000 two-byte characters: within the text limit, but with the file it overflows 1 MiB.
    const r = await acceptMessage(sys.deps, { sessionId, text: 'ж'.repeat(200_000), source: 'telegram', attachments: [ref] });
    const msgs = await sys.waitMessages(sessionId, (st) => st.at(-1) === 'failed', 30_000);
    expect(msgs.at(-1)).toMatchObject({ id: r.message.id, outcomeDetail: 'attachment could not be read' });
    expect(await sys.db.agentCommand.count({ where: { sessionId, type: 'deliver', payload: { path: ['messageId'], equals: r.message.id } } })).toBe(0);
    expect((await sys.session(sessionId)).state).toBe('Ready');
  }, 60_000);

  it('a file the node cannot store is refused before typing; the outcome says so, not the executor', async () => {
    const other = await sys.createSession('claude', sys.folder('attachments-blocked'));
    const otherNative = (await sys.waitState(other.id, 'Ready')).nativeSessionId!;
    // The session's attachment folder cannot be created: a plain file stands where it would be.
    mkdirSync(path.join(sys.agentDir, 'attachments'), { recursive: true });
    writeFileSync(path.join(sys.agentDir, 'attachments', other.id), 'not a folder');
    const bytes = Buffer.from('blocked');
    const dir = path.join(sys.root, 'server-attachments', other.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'b.txt'), bytes);
    const ref = {
      name: 'b.txt',
      mime: 'text/plain',
      path: path.join(dir, 'b.txt'),
      sizeBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    const r = await acceptMessage(sys.deps, { sessionId: other.id, text: 'must not be typed', source: 'telegram', attachments: [ref] });
    const msgs = await sys.waitMessages(other.id, (st) => st.length === 1 && st[0] === 'failed', 30_000);
    expect(msgs[0]!.id).toBe(r.message.id);
    expect(msgs[0]!.outcomeDetail).toBe('attachment could not be stored');
    expect((await sys.outbox(other.id)).filter((o) => o.kind === 'attachment_failed')).toHaveLength(1);
    expect(sys.turns('claude', otherNative).some((t) => (t.userText ?? '').includes('must not be typed'))).toBe(false);
    expect((await sys.evidence(other.id)).some((e) => e.event === 'attachment_failed')).toBe(true);
    expect((await sys.session(other.id)).state).toBe('Ready');
  }, 90_000);

  it('the agent refuses a deliver whose bytes do not match the checksum it carries: nothing written, nothing typed', async () => {
    const before = sys.turns('claude', native).length;
    const row = await sys.session(sessionId);
    const messageId = randomUUID();
    const bytes = Buffer.from('bytes as sent');
    const attachments = [
      {
        name: 'x.txt',
        mime: 'text/plain',
        sizeBytes: bytes.length,
        sha256: createHash('sha256').update('other bytes').digest('hex'),
        contentBase64: bytes.toString('base64'),
      },
    ];
    // Written as the engine writes commands, but tampered: the payload's checksum names other bytes.
    await sys.db.$transaction(async (tx) =>
      insertSessionCommand(tx, {
        id: randomUUID(),
        nodeId: sys.nodeId,
        sessionId,
        type: 'deliver',
        payload: { generation: row.observerGeneration, messageId, text: 'tampered must not be typed', attachments },
      }),
    );
    const result = await waitUntil(
      'the deliver result',
      async () => {
        const evs = await sys.db.agentEvent.findMany({ where: { nodeId: sys.nodeId, type: 'command_result' } });
        return evs.map((e) => JSON.stringify(e.payload)).find((p) => p.includes(messageId));
      },
      30_000,
    );
    expect(JSON.parse(result)).toMatchObject({ data: { command: 'deliver', typed: false, attachmentError: 'checksum differs' } });
    expect(list(folder()).some((f) => f.startsWith(messageId))).toBe(false);
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      sys
        .turns('claude', native)
        .slice(before)
        .some((t) => (t.userText ?? '').includes('tampered')),
    ).toBe(false);
  }, 60_000);
});
