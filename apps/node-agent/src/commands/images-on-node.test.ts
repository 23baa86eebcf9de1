import { createHash, randomInt } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidPng } from '@bria/testkit/png';
import type { Executor } from '../../../../packages/core/src/protocol/index.ts';
import { acceptMessage } from '../../../../packages/core/src/services/sessions/index.ts';
import { startSystem, type System } from '../../../../packages/testkit/src/system.ts';

// An image sent with a message reaches the real CLI's model request as an image (README of
// executors, "Images"): a real hub, a real agent, real Claude Code and Codex against the mock models,
// whose log names each image block by its SHA-256.
let sys: System;
const sessions = {} as Record<Executor, { id: string; native: string }>;
beforeAll(async () => {
  sys = await startSystem({ slowChunks: 1, slowChunkMs: 10 });
  await sys.startAgent();
  for (const executor of ['claude', 'codex'] as const) {
    const s = await sys.createSession(executor, sys.folder(`images-${executor}`));
    sessions[executor] = { id: s.id, native: (await sys.waitState(s.id, 'Ready')).nativeSessionId! };
  }
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Stores a file as the bot does (a server folder plus its SHA-256) and returns the stored reference. */
function serverFile(sessionId: string, name: string, mime: string, bytes: Buffer) {
  const dir = path.join(sys.root, 'server-attachments', sessionId);
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, `${sha(bytes)}-${name}`);
  writeFileSync(p, bytes);
  return { name, mime, path: p, sizeBytes: bytes.length, sha256: sha(bytes) };
}

async function send(executor: Executor, text: string, attachments: ReturnType<typeof serverFile>[]) {
  const { id } = sessions[executor];
  const r = await acceptMessage(sys.deps, { sessionId: id, text, source: 'web', attachments });
  const msgs = await sys.waitMessages(id, (st) => st.length > 0 && st.every((s) => s === 'completed' || s === 'failed'), 90_000);
  expect(msgs.find((m) => m.id === r.message.id)?.status).toBe('completed');
  const turns = sys.turns(executor, sessions[executor].native).filter((t) => (t.userText ?? '').includes(text));
  // Typed once: one turn request carried the text.
  expect(turns).toHaveLength(1);
  const folder = path.join(sys.agentDir, 'attachments', id);
  const files = readdirSync(folder).filter((f) => f.startsWith(r.message.id));
  return { turn: turns[0]!, folder, files };
}

describe('images sent with a message', () => {
  it('Claude: a PNG (name with spaces) arrives as an image block of the same bytes; a CSV beside it stays a named path', async () => {
    const png = solidPng({ seed: randomInt(1 << 24) });
    const csv = Buffer.from(`id,name\n1,img ${Date.now()}\n`);
    const text = `what is in the picture ${Date.now()}`;
    const { turn, folder, files } = await send('claude', text, [
      serverFile(sessions.claude.id, 'my screen shot.png', 'image/png', png),
      serverFile(sessions.claude.id, 'table.csv', 'text/csv', csv),
    ]);
    expect(turn.images).toEqual([{ mediaType: 'image/png', sha256: sha(png), bytes: png.length }]);
    // The image is stored under a name the CLI reads as a PNG, byte-exact, and is not named as a file.
    const stored = files.find((f) => f.endsWith('.png'))!;
    expect(stored).toMatch(/-my_screen_shot\.png$/);
    expect(readFileSync(path.join(folder, stored)).equals(png)).toBe(true);
    expect(turn.userText).toMatch(new RegExp(`^\\[Image #\\d+\\] ${text}\\n\\[Attached file: \\S+table\\.csv \\(text/csv, \\d+ B\\)\\]`));
    expect(turn.userText).not.toContain(`[Attached file: ${path.join(folder, stored)}`);
  }, 120_000);

  it('Claude: two images arrive as two image blocks, in order, before the text', async () => {
    const a = solidPng({ seed: randomInt(1 << 24), width: 8 });
    const b = solidPng({ seed: randomInt(1 << 24), height: 8 });
    const mark = `pair-${Date.now()}`;
    const { turn } = await send('claude', mark, [
      serverFile(sessions.claude.id, 'a.png', 'image/png', a),
      serverFile(sessions.claude.id, 'b.png', 'image/png', b),
    ]);
    expect(turn.images?.map((i) => i.sha256)).toEqual([sha(a), sha(b)]);
    expect(turn.userText).toMatch(new RegExp(`^\\[Image #\\d+\\] \\[Image #\\d+\\] ${mark}`));
  }, 120_000);

  it('Claude: an image without a caption is typed as its placeholder alone and completes', async () => {
    const png = solidPng({ seed: randomInt(1 << 24), width: 4, height: 4 });
    const { id, native } = sessions.claude;
    const r = await acceptMessage(sys.deps, { sessionId: id, text: '', source: 'web', attachments: [serverFile(id, 'only.png', 'image/png', png)] });
    const msgs = await sys.waitMessages(id, (st) => st.length > 0 && st.every((s) => s === 'completed' || s === 'failed'), 90_000);
    expect(msgs.find((m) => m.id === r.message.id)?.status).toBe('completed');
    const turns = sys.turns('claude', native).filter((t) => t.images?.some((i) => i.sha256 === sha(png)));
    expect(turns).toHaveLength(1);
    expect(turns[0]!.userText).toMatch(/^\[Image #\d+\]\n\[Image: source: \S+-only\.png\]$/);
  }, 120_000);

  it.each(['claude', 'codex'] as const)(
    '%s: a file with a PNG signature that is no image is typed once, named as a path',
    async (cli) => {
      const bytes = Buffer.concat([solidPng().subarray(0, 16), Buffer.from(`not an image ${Date.now()}`)]);
      const text = `broken picture ${cli} ${Date.now()}`;
      const { turn, folder, files } = await send(cli, text, [serverFile(sessions[cli].id, 'broken.png', 'image/png', bytes)]);
      expect(files).toHaveLength(1);
      expect(turn.images).toEqual([]);
      expect(turn.userText).toContain(`[Attached file: ${path.join(folder, files[0]!)} (image/png, ${bytes.length} B)]`);
    },
    120_000,
  );

  it('Codex: a PNG arrives as an input_image of the same bytes, its placeholder before the text', async () => {
    const png = solidPng({ seed: randomInt(1 << 24) });
    const text = `codex look at this ${Date.now()}`;
    const { turn, folder, files } = await send('codex', text, [serverFile(sessions.codex.id, 'shot one.png', 'image/png', png)]);
    expect(turn.images).toEqual([{ mediaType: 'image/png', sha256: sha(png), bytes: png.length }]);
    expect(files).toEqual([expect.stringMatching(/-shot_one\.png$/)]);
    expect(readFileSync(path.join(folder, files[0]!)).equals(png)).toBe(true);
    expect(turn.userText).toMatch(new RegExp(`\\[Image #\\d+\\] {2}${text}$`));
    expect(turn.userText).not.toContain('[Attached file: ');
  }, 120_000);

  it('Codex: an image without a caption is typed as its placeholder alone and completes', async () => {
    const png = solidPng({ seed: randomInt(1 << 24), width: 4, height: 4 });
    const { id, native } = sessions.codex;
    const r = await acceptMessage(sys.deps, { sessionId: id, text: '', source: 'web', attachments: [serverFile(id, 'only.png', 'image/png', png)] });
    const msgs = await sys.waitMessages(id, (st) => st.length > 0 && st.every((s) => s === 'completed' || s === 'failed'), 90_000);
    expect(msgs.find((m) => m.id === r.message.id)?.status).toBe('completed');
    expect(sys.turns('codex', native).filter((t) => t.images?.some((i) => i.sha256 === sha(png)))).toHaveLength(1);
  }, 120_000);
});
