import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../domain/index.ts';
import { engineRig, type Rig } from '../../engine/testing.ts';
import { pumpSession } from '../../engine/session-work.ts';
import { acceptMessage } from './accept-message.ts';
import { cancelMessage, editMessage } from './change-message.ts';
import { createSession } from './create-session.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

const newSession = () => createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
const ready = (sessionId: string, n = 1) =>
  rig.emit(sessionId, 'session_ready', { identity: { nativeSessionId: `thread-${n}`, tmuxPane: `%${n}`, pid: 100 + n, pidStartTime: '1' } });
const send = async (sessionId: string, text: string) => (await acceptMessage(rig.deps, { sessionId, text, source: 'web' })).message.id;
const delivers = async (sessionId: string) => (await rig.commands(sessionId)).filter((c) => c.type === 'deliver');
const refusal = async (p: Promise<unknown>): Promise<{ code: string; userMessage: string | undefined }> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return { code: err.code, userMessage: err.userMessage };
};

describe('cancel and edit before the hand-over', () => {
  it('a cancelled message is never delivered; the next one goes instead', async () => {
    const s = await newSession();
    const a = await send(s.id, 'first');
    const b = await send(s.id, 'second');
    await rig.engine.settle();
    expect(await delivers(s.id)).toEqual([]); // not Ready yet: both wait
    expect(await cancelMessage(rig.deps, { messageId: a })).toMatchObject({ id: a, status: 'cancelled' });
    await ready(s.id);
    const d = await delivers(s.id);
    expect(d.map((c) => c.payload.messageId)).toEqual([b]);
    expect((await rig.messages(s.id)).map((m) => [m.id, m.status])).toEqual([
      [a, 'cancelled'],
      [b, 'leased'],
    ]);
  });

  it('an edit replaces the text before delivery and keeps the first text for the record', async () => {
    const s = await newSession();
    const a = await send(s.id, 'first draft');
    await editMessage(rig.deps, { messageId: a, text: 'second draft' });
    await editMessage(rig.deps, { messageId: a, text: 'final words' });
    await ready(s.id);
    const d = await delivers(s.id);
    expect(d.map((c) => c.payload.text)).toEqual(['final words']);
    const row = await rig.db.message.findUniqueOrThrow({ where: { id: a }, select: { text: true, originalText: true } });
    expect(row).toEqual({ text: 'final words', originalText: 'first draft' });
  });

  it('an edit meets the same text bounds as sending', async () => {
    const s = await newSession();
    const a = await send(s.id, 'first');
    expect((await refusal(editMessage(rig.deps, { messageId: a, text: '' }))).code).toBe('INVALID_INPUT');
    expect((await refusal(editMessage(rig.deps, { messageId: a, text: 'x'.repeat(200_001) }))).code).toBe('INVALID_INPUT');
    expect((await refusal(editMessage(rig.deps, { messageId: a, text: 'a\u001b[31mb' }))).code).toBe('INVALID_INPUT');
    expect((await rig.db.message.findUniqueOrThrow({ where: { id: a } })).text).toBe('first');
  });

  it("another session's message is not found, and the message stays as it was", async () => {
    const s = await newSession();
    const other = await newSession();
    const a = await send(s.id, 'first');
    expect((await refusal(cancelMessage(rig.deps, { messageId: a, sessionId: other.id }))).code).toBe('NOT_FOUND');
    expect((await refusal(cancelMessage(rig.deps, { messageId: '00000000-0000-4000-8000-000000000000' }))).code).toBe('NOT_FOUND');
    expect((await rig.db.message.findUniqueOrThrow({ where: { id: a } })).status).toBe('pending');
  });
});

describe('refused once a deliver exists', () => {
  it('cancel and edit of a handed-over message say "already delivered" and change nothing', async () => {
    const s = await newSession();
    await ready(s.id);
    const a = await send(s.id, 'first');
    await rig.engine.settle();
    expect((await delivers(s.id)).map((c) => c.payload.messageId)).toEqual([a]);
    for (const r of [await refusal(cancelMessage(rig.deps, { messageId: a })), await refusal(editMessage(rig.deps, { messageId: a, text: 'other' }))]) {
      expect(r.code).toBe('CONFLICT');
      expect(r.userMessage).toMatch(/^already delivered/);
    }
    const row = await rig.db.message.findUniqueOrThrow({ where: { id: a } });
    expect([row.status, row.text, row.originalText]).toEqual(['leased', 'first', null]);
    // A cancelled one cannot be cancelled or edited again.
    const b = await send(s.id, 'second');
    await cancelMessage(rig.deps, { messageId: b });
    expect((await refusal(cancelMessage(rig.deps, { messageId: b }))).code).toBe('CONFLICT');
    expect((await refusal(editMessage(rig.deps, { messageId: b, text: 'x' }))).code).toBe('CONFLICT');
  });

  it("after the agent's proof that it typed nothing (typed: false) the message may be cancelled again", async () => {
    const s = await newSession();
    await ready(s.id);
    const a = await send(s.id, 'first');
    await rig.engine.settle();
    const [d] = await delivers(s.id);
    await rig.emit(
      s.id,
      'command_result',
      { command: 'deliver', ok: false, typed: false, messageId: a, error: 'cannot deliver while exited' },
      undefined,
      d?.id,
    );
    expect((await rig.db.message.findUniqueOrThrow({ where: { id: a } })).status).toBe('pending');
    await cancelMessage(rig.deps, { messageId: a });
    rig.clock.advance(60_000);
    await rig.engine.settle();
    expect(await delivers(s.id)).toHaveLength(1);
    expect((await rig.db.message.findUniqueOrThrow({ where: { id: a } })).status).toBe('cancelled');
  });
});

describe('a cancel racing the hand-over', () => {
  it('50 races: either cancelled and never a deliver, or delivered and the cancel refused — never both, never neither', async () => {
    const tally = { cancelled: 0, delivered: 0 };
    const sessions = [];
    for (let i = 0; i < 50; i++) {
      const s = await newSession();
      await ready(s.id, i + 1);
      sessions.push(s);
    }
    for (const s of sessions) {
      const m = await send(s.id, 'race me');
      // The rig's engine is woken by the stored message's NOTIFY as well: up to three contenders.
      const [cancel] = await Promise.all([
        cancelMessage(rig.deps, { messageId: m }).then(
          () => 'ok' as const,
          (e: unknown) => e,
        ),
        pumpSession({ ...rig.deps, jitter: () => 0.5 }, s.id),
      ]);
      await rig.engine.settle();
      const row = await rig.db.message.findUniqueOrThrow({ where: { id: m }, select: { status: true, deliveryId: true } });
      const d = (await delivers(s.id)).filter((c) => c.payload.messageId === m);
      if (cancel === 'ok') {
        tally.cancelled += 1;
        expect({ status: row.status, delivers: d.length, deliveryId: row.deliveryId }).toEqual({ status: 'cancelled', delivers: 0, deliveryId: null });
      } else {
        tally.delivered += 1;
        expect(cancel).toBeInstanceOf(AppError);
        expect((cancel as AppError).userMessage).toMatch(/^already delivered/);
        expect({ status: row.status, delivers: d.length, deliveryId: row.deliveryId }).toEqual({ status: 'leased', delivers: 1, deliveryId: d[0]?.id });
      }
    }
    expect(tally.cancelled + tally.delivered).toBe(50);
    // Which side wins is the scheduler's; both outcomes are printed so a run shows the race was real.
    console.log(`cancel vs hand-over, 50 races: ${tally.cancelled} cancelled, ${tally.delivered} delivered`);
  }, 180_000);

  it('30 races of an edit: the deliver carries the new text and the edit succeeded, or the old text and the edit was refused — never half', async () => {
    const tally = { edited: 0, refused: 0 };
    const sessions = [];
    for (let i = 0; i < 30; i++) {
      const s = await newSession();
      await ready(s.id, i + 1);
      sessions.push(s);
    }
    for (const s of sessions) {
      const m = await send(s.id, 'old text');
      const [edit] = await Promise.all([
        editMessage(rig.deps, { messageId: m, text: 'new text' }).then(
          () => 'ok' as const,
          (e: unknown) => e,
        ),
        pumpSession({ ...rig.deps, jitter: () => 0.5 }, s.id),
      ]);
      await rig.engine.settle();
      const d = (await delivers(s.id)).filter((c) => c.payload.messageId === m);
      const row = await rig.db.message.findUniqueOrThrow({ where: { id: m }, select: { text: true, originalText: true } });
      expect(d).toHaveLength(1);
      if (edit === 'ok') {
        tally.edited += 1;
        expect([d[0]?.payload.text, row.text, row.originalText]).toEqual(['new text', 'new text', 'old text']);
      } else {
        tally.refused += 1;
        expect((edit as AppError).userMessage).toMatch(/^already delivered/);
        expect([d[0]?.payload.text, row.text, row.originalText]).toEqual(['old text', 'old text', null]);
      }
    }
    expect(tally.edited + tally.refused).toBe(30);
    console.log(`edit vs hand-over, 30 races: ${tally.edited} edited, ${tally.refused} refused`);
  }, 180_000);
});
