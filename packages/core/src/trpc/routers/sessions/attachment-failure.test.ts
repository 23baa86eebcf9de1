import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { ATTACHMENT_NOT_STORED, ATTACHMENT_UNREADABLE } from '../../../engine/step/carry-attachments.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

// The queue view tells an attachment failure apart from the executor's failure.
const { db } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box' }));
});

describe('sessions.get: attachment failures', () => {
  it('marks messages failed by their attachment, and only those', async () => {
    const sessionId = randomUUID();
    await db.session.create({ data: { id: sessionId, nodeId, executor: 'claude', folder: '/w', state: 'Ready', nativeSessionId: randomUUID() } });
    const rows: [string, 'failed' | 'terminal_failed' | 'completed', string | null][] = [
      ['a', 'failed', ATTACHMENT_NOT_STORED],
      ['b', 'failed', ATTACHMENT_UNREADABLE],
      ['c', 'terminal_failed', 'turn_api_error'],
      ['d', 'completed', 'turn_completed'],
    ];
    for (const [i, [text, status, outcomeDetail]] of rows.entries()) {
      await db.message.create({ data: { id: randomUUID(), sessionId, seq: i + 1, source: 'web', text, status, outcomeDetail } });
    }
    const { caller } = await signedInCaller(db);
    const view = await caller.sessions.get({ sessionId });
    expect(view.conversation.items.map((m) => [m.text, m.attachmentFailure])).toEqual([
      ['a', 'not_stored'],
      ['b', 'unreadable'],
      ['c', null],
      ['d', null],
    ]);
  });
});
