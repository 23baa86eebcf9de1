import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { PROMPT_STATES, type PromptState } from '../domain/prompt-machine.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';
import { sweepRetention } from './retention.ts';

// Issue 30: the CLIs' permission requests and questions (with the tool input they showed) are swept
// like answered commands: resolved ones older than the retention go; open ones never.
const { db } = await fileDatabase();
const DAY = 24 * 3600_000;
const NOW = new Date('2026-06-01T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);
const FINAL: readonly PromptState[] = ['delivered', 'answered_at_computer', 'ended'];

describe('retention sweep: permission prompts', () => {
  it('deletes final prompts resolved before the retention, keeps recent ones and every open one', async () => {
    const { nodeId } = await createNodeWithToken(db, { name: `prompts-${randomUUID().slice(0, 6)}` });
    const sessionId = randomUUID();
    await db.session.create({ data: { id: sessionId, nodeId, executor: 'claude', folder: '/w', state: 'Ready', nativeSessionId: randomUUID() } });
    const prompt = async (state: PromptState, ageDays: number) => {
      const id = randomUUID();
      const at = ago(ageDays);
      await db.permissionPrompt.create({
        data: {
          id,
          sessionId,
          generation: 1,
          kind: 'tool',
          toolName: 'Bash',
          toolInput: { command: 'cat .env' },
          state,
          receivedAt: at,
          expiresAt: at,
          createdAt: at,
          resolvedAt: FINAL.includes(state) ? at : null,
        },
      });
      return id;
    };
    const gone: string[] = [];
    const kept: string[] = [];
    for (const state of PROMPT_STATES) {
      // Old: only the final states go (an open one, however old, still waits for its answer or end).
      (FINAL.includes(state) ? gone : kept).push(await prompt(state, 45));
      kept.push(await prompt(state, 10));
    }
    // Batches of 2 over 3 old final rows: the keyset cursor goes on past a full batch.
    const r = await sweepRetention(db, { days: 30, now: NOW, batchSize: 2, pauseMs: 0 });
    expect(r.prompts).toBe(3);
    const left = new Set((await db.permissionPrompt.findMany({ where: { sessionId }, select: { id: true } })).map((p) => p.id));
    for (const id of gone) expect(left.has(id)).toBe(false);
    for (const id of kept) expect(left.has(id)).toBe(true);
    expect(left.size).toBe(kept.length);
    expect((await sweepRetention(db, { days: 30, now: NOW, pauseMs: 0 })).prompts).toBe(0);
  });
});
