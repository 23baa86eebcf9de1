import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hugeReplyText } from '../../packages/testkit/src/mock-models/behaviour.ts';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { signedInCaller } from '../../packages/core/src/trpc/test-support.ts';
import { startWorld, type World } from './world.ts';

// Issue 30: a final of 600,000 Cyrillic characters (~1.2 MB as UTF-8, beyond the 1 MiB frame) cut the
// computer off: the hub closed on the oversized frame, the agent replayed it first on every
// reconnect, for ever. Now the agent splits it into parts, the hub joins them once, and the user gets
// it whole: in the database, in the Telegram chat (split across messages in order) and by tRPC.
let w: World;
beforeAll(async () => {
  w = await startWorld({ executors: ['claude', 'codex'] });
});
afterAll(async () => {
  await w?.dispose();
});

describe('a 1.2 MB final with the real Claude Code', () => {
  it('arrives whole and in order in the database, the chat and tRPC; the node stays online', async () => {
    const folder = w.sys.folder(`tg-huge-${Date.now().toString(36)}`);
    const { sessionId } = await w.newSession('claude', folder);
    await w.waitCard((t) => t.includes('State: ready'), 90_000);
    const connectedAt = (await w.sys.db.node.findUniqueOrThrow({ where: { id: w.sys.nodeId } })).connectedAt;
    const ask = 'HUGEREPLY-600000 please';
    const expected = hugeReplyText(ask);
    expect(expected.length).toBe(600_000);
    expect(Buffer.byteLength(expected)).toBeGreaterThan(1024 * 1024);
    const sent = w.say(ask);
    const [msg] = await w.sys.waitMessages(sessionId, (st) => st.length === 1 && st[0] === 'completed', 180_000);
    // The database: the whole final, byte for byte.
    const row = await w.sys.db.message.findUniqueOrThrow({ where: { id: msg!.id }, select: { finalText: true } });
    expect(row.finalText?.length).toBe(600_000);
    expect(row.finalText === expected).toBe(true);
    // The chat: every part within Telegram's limit, in order, together the whole answer.
    const parts = await waitUntil(
      'the whole final in the chat',
      async () => {
        const got = w.botMessagesAfter(sent.message_id, (m) => !m.reply_markup && /[а-я]/.test(m.text ?? ''));
        const joined = got.map((m) => m.text ?? '').join('');
        return joined.replace(/\s+/g, '').length >= expected.replace(/\s+/g, '').length ? got : null;
      },
      180_000,
    );
    for (const p of parts) expect([...(p.text ?? '')].length).toBeLessThanOrEqual(4096);
    expect(parts.map((m) => m.message_id)).toEqual([...parts.map((m) => m.message_id)].sort((a, b) => a - b));
    expect(
      parts
        .map((m) => m.text ?? '')
        .join('')
        .replace(/\s+/g, ''),
    ).toBe(expected.replace(/\s+/g, ''));
    // tRPC (what the dashboard shows): the whole final.
    const { caller } = await signedInCaller(w.sys.db);
    const viaTrpc = await caller.sessions.get({ sessionId });
    const shown = viaTrpc.conversation.items.find((m) => m.id === msg!.id);
    expect(shown?.finalText === expected).toBe(true);
    // The node never dropped: same connection, online, nothing refused.
    const node = await w.sys.db.node.findUniqueOrThrow({ where: { id: w.sys.nodeId } });
    expect(node.online).toBe(true);
    expect(node.connectedAt?.getTime()).toBe(connectedAt?.getTime());
    expect(await w.sys.db.agentDeadLetter.count()).toBe(0);
    // The parts were joined once into one stored final, and none of them is left.
    expect(await w.sys.db.agentEvent.count({ where: { type: 'event_part' } })).toBe(0);
    expect(await w.sys.db.agentEvent.count({ where: { type: 'turn_final', sessionId } })).toBe(1);
  });
});
