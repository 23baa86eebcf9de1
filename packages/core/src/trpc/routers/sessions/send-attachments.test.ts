import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { MAX_ATTACHMENT_BYTES } from '../../../protocol/index.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

// Files sent with a message from the dashboard (issue 34): stored on this server with their SHA-256
// before the message is queued, exactly as Telegram's are; refused in words over the limit or
// without a folder to keep them; a retry of the same client key stores one message.
const { db } = await fileDatabase();
const dir = mkdtempSync(path.join(tmpdir(), 'bria-upload-'));
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true }));
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('sessions.sendMessage with files', () => {
  it('stores each file (0600, named by its hash) and queues the message with them; a retry stores nothing twice', async () => {
    const { caller } = await signedInCaller(db, { attachmentsDir: dir });
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/up' });
    const files = [
      { name: 'shot.png', mime: 'image/png', base64: PNG.toString('base64') },
      { name: '../../etc/notes.txt', mime: 'text/plain', base64: Buffer.from('hello').toString('base64') },
    ];
    const r = await caller.sessions.sendMessage({ sessionId: s.id, text: 'look at this', clientKey: 'upload-0001', attachments: files });
    const again = await caller.sessions.sendMessage({ sessionId: s.id, text: 'look at this', clientKey: 'upload-0001', attachments: files });
    expect(again).toMatchObject({ duplicate: true, message: { id: r.message.id } });
    const row = await db.message.findUniqueOrThrow({ where: { id: r.message.id } });
    const stored = row.attachments as { name: string; mime: string; path: string; sizeBytes: number; sha256: string }[];
    expect(stored.map((a) => [a.name, a.mime, a.sizeBytes])).toEqual([
      ['shot.png', 'image/png', PNG.length],
      ['notes.txt', 'text/plain', 5],
    ]);
    for (const a of stored) {
      expect(path.dirname(a.path)).toBe(path.join(dir, s.id));
      expect(createHash('sha256').update(readFileSync(a.path)).digest('hex')).toBe(a.sha256);
      expect(statSync(a.path).mode & 0o777).toBe(0o600);
    }
    expect(await db.message.count({ where: { sessionId: s.id } })).toBe(1);
  });

  it('refuses in words: over the limit, empty, and a server with no folder for them', async () => {
    const { caller } = await signedInCaller(db, { attachmentsDir: dir });
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/up2' });
    const big = Buffer.alloc(MAX_ATTACHMENT_BYTES / 2 + 1, 1).toString('base64');
    const err = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const tooBig = await err(
      caller.sessions.sendMessage({
        sessionId: s.id,
        text: 'x',
        clientKey: 'upload-0002',
        attachments: [
          { name: 'a.bin', mime: 'application/octet-stream', base64: big },
          { name: 'b.bin', mime: 'application/octet-stream', base64: big },
        ],
      }),
    );
    expect(tooBig).toBeInstanceOf(TRPCError);
    expect((tooBig as TRPCError).message).toBe('send.tooBig');
    const empty = await err(caller.sessions.sendMessage({ sessionId: s.id, text: '  ', clientKey: 'upload-0003' }));
    expect(empty).toBeInstanceOf(TRPCError);
    const { caller: noDir } = await signedInCaller(db);
    const none = await err(
      noDir.sessions.sendMessage({
        sessionId: s.id,
        text: 'x',
        clientKey: 'upload-0004',
        attachments: [{ name: 'a.txt', mime: 'text/plain', base64: 'aGk=' }],
      }),
    );
    expect((none as TRPCError).message).toBe('send.noAttachments');
    expect(await db.message.count({ where: { sessionId: s.id } })).toBe(0);
  });
});
