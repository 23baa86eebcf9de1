import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { listOutbox } from '../../../db/repos/outbox.ts';
import { acceptMessage } from '../../../services/sessions/accept-message.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

// The dashboard's doors for cancelling and editing a queued message (issue 33). No engine runs here,
// so nothing is handed over unless the test writes the lease itself.
const { db } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true }));
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
});

let k = 0;
const key = () => `change-msg-${String(++k).padStart(4, '0')}`;
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (x: unknown) => x as TRPCError,
  );

describe('sessions.cancelMessage and sessions.editMessage', () => {
  it('cancel and edit a queued message; refuse "already delivered" once it was handed over', async () => {
    const { caller } = await signedInCaller(db);
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/change' });
    const a = (await caller.sessions.sendMessage({ sessionId: s.id, text: 'to cancel', clientKey: key() })).message;
    const b = (await caller.sessions.sendMessage({ sessionId: s.id, text: 'to edit', clientKey: key() })).message;

    expect(await caller.sessions.cancelMessage({ messageId: a.id })).toEqual({ id: a.id, sessionId: s.id, seq: a.seq, status: 'cancelled' });
    expect(await caller.sessions.editMessage({ messageId: b.id, text: 'edited' })).toEqual({ id: b.id, sessionId: s.id, seq: b.seq, status: 'pending' });
    expect(await db.message.findUniqueOrThrow({ where: { id: b.id }, select: { text: true, originalText: true } })).toEqual({
      text: 'edited',
      originalText: 'to edit',
    });

    // The same bounds as sending: a text its CLI cannot take as sent is refused with its reason.
    const cli = await rejection(caller.sessions.editMessage({ messageId: b.id, text: '/help me' }));
    expect([cli?.code, cli?.message]).toEqual(['BAD_REQUEST', 'msg.refusedCliCommand']);

    // Handed over (as the pump does it: the lease and its command id in one write).
    await db.message.update({ where: { id: b.id }, data: { status: 'leased', deliveryId: '00000000-0000-4000-8000-0000000000b0' } });
    for (const e of [
      await rejection(caller.sessions.cancelMessage({ messageId: b.id })),
      await rejection(caller.sessions.editMessage({ messageId: b.id, text: 'late' })),
    ]) {
      expect(e).toBeInstanceOf(TRPCError);
      expect(e?.code).toBe('CONFLICT');
      expect(e?.message).toMatch(/^already delivered/);
    }
    expect((await db.message.findUniqueOrThrow({ where: { id: b.id } })).text).toBe('edited');
    expect((await rejection(caller.sessions.cancelMessage({ messageId: '00000000-0000-4000-8000-000000000000' })))?.code).toBe('NOT_FOUND');
  });

  it('a message that came from Telegram, cancelled or edited here, is told in its chat as a reply to it; one from here is not', async () => {
    const { caller } = await signedInCaller(db);
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/change-tg' });
    const chat = 4_200_000 + Math.floor(Math.random() * 100_000);
    const fromTg = async (tgId: number, text: string) =>
      (await acceptMessage({ db }, { sessionId: s.id, text, source: 'telegram', sourceKey: `tg:${chat}:${tgId}` })).message;
    const a = await fromTg(11, 'cancel me from the dashboard');
    const b = await fromTg(12, 'edit me from the dashboard');
    const web = (await caller.sessions.sendMessage({ sessionId: s.id, text: 'from here', clientKey: key() })).message;
    await caller.sessions.cancelMessage({ messageId: a.id });
    await caller.sessions.editMessage({ messageId: b.id, text: 'edited on the dashboard' });
    await caller.sessions.cancelMessage({ messageId: web.id });
    const rows = await listOutbox(db, { sessionId: s.id, kind: 'message_changed' });
    expect(rows.map((r) => [r.chatId, r.payload])).toEqual([
      [BigInt(chat), expect.objectContaining({ messageId: a.id, seq: a.seq, change: 'cancelled', replyTo: 11 })],
      [BigInt(chat), expect.objectContaining({ messageId: b.id, seq: b.seq, change: 'edited', replyTo: 12 })],
    ]);
  });
});
