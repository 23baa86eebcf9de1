import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// A file sent in the Telegram chat, end to end: the bot process stores it, the engine carries it to
// the real node agent, which writes it into the session's folder and names it to the real Claude Code.
let w: World;
let sessionId = '';
let native = '';
beforeAll(async () => {
  w = await startWorld({ executors: ['claude', 'codex'], slowChunks: 2, slowChunkMs: 20 });
  const r = await w.newSession('claude', w.sys.folder('tg-files'));
  sessionId = r.sessionId;
  await w.waitCard((t) => t.includes('State: ready'));
  native = (await w.sys.session(sessionId)).nativeSessionId as string;
}, 120_000);
afterAll(async () => {
  await w?.dispose();
});

describe('files from the Telegram chat', () => {
  it('a document reaches the CLI as a path in its folder on the node, byte-exact', async () => {
    const bytes = Buffer.from('id,name\n1,Ада\n2,Bria\n');
    const { message: sent } = w.fake.userSendsDocument(new Uint8Array(bytes), 'table.csv', 'text/csv', 'summarise the attached table');
    await waitUntil('the 👀 reaction', async () => w.fake.reactions(w.userId, sent.message_id).length > 0, 15_000);
    await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('MOCK-REPLY') ?? false), 60_000);
    const [msg] = await w.sys.waitMessages(sessionId, (st) => st[0] === 'completed', 30_000);
    const dir = path.join(w.sys.agentDir, 'attachments', sessionId);
    const file = path.join(dir, `${msg?.id}-table.csv`);
    expect(readdirSync(dir)).toEqual([path.basename(file)]);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    const typed = w.sys
      .turns('claude', native)
      .map((t) => t.userText ?? '')
      .filter((t) => t.includes('summarise the attached table'));
    expect(typed).toHaveLength(1);
    expect(typed[0]).toContain(`[Attached file: ${file} (text/csv, ${bytes.length} B)]`);
  });

  it('a document over 512 KB is refused with the stated limit and never queued', async () => {
    const { message: sent } = w.fake.userSendsDocument(new Uint8Array(600 * 1024), 'big.bin', 'application/octet-stream', 'too big');
    const notice = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('512 KB') ?? false), 15_000);
    expect(notice.text).toMatch(/^Not sent: the file is larger than 512 KB/);
    expect(await w.sys.messages(sessionId)).toHaveLength(1);
  });

  it('a file the node cannot store: the chat is told it was the file, the agent never sees the message', async () => {
    // A plain file where the session's attachment folder belongs: the node cannot write there.
    const dir = path.join(w.sys.agentDir, 'attachments', sessionId);
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'in the way');
    const { message: sent } = w.fake.userSendsDocument(new Uint8Array(Buffer.from('blocked')), 'b.txt', 'text/plain', 'blocked file caption');
    const notice = await w.waitFor((m) => m.message_id > sent.message_id && (m.text?.includes('could not be passed on') ?? false), 30_000);
    expect(notice.text).toContain('This is not an agent error');
    const msgs = await w.sys.messages(sessionId);
    expect(msgs.at(-1)).toMatchObject({ status: 'failed', outcomeDetail: 'attachment could not be stored' });
    expect(w.sys.turns('claude', native).some((t) => (t.userText ?? '').includes('blocked file caption'))).toBe(false);
    expect((await w.sys.session(sessionId)).state).toBe('Ready');
  });
});
