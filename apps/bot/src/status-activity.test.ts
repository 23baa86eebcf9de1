import { describe, expect, it } from 'vitest';
import type { Db } from '@bria/core/services';
import { changeSession, seedChat } from '@bria/testkit/bot-fixtures';
import { type Harness, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// `/status` of a working session: what the CLI does now (from its journal) and the context use.
let db: Db;
let h: Harness;
const ADA = 100200301;

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

describe('/status while a turn runs', () => {
  it('shows the current activity, its steps, and context % with compactions', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sessionId = await seedSession(db, { nodeId, state: 'Running', title: 'S' });
    await changeSession(db, sessionId, { executor: 'codex' });
    const started = new Date(Date.now() - 125_000).toISOString();
    await db.session.update({
      where: { id: sessionId },
      data: {
        activity: {
          kind: 'edit',
          toolName: 'apply_patch',
          subject: '/home/ada/project/src/app.ts',
          status: 'running',
          added: 12,
          removed: 3,
          reads: 0,
          steps: 5,
          nativeTurnId: 't',
          turnStartedAt: started,
          at: started,
        },
        activityAt: new Date(),
        contextUsed: 51_680,
        contextWindow: 258_400,
        contextWindowSource: 'journal',
        compactions: 1,
      },
    });
    await seedChat(db, { chatId: ADA, selectedNodeId: nodeId, active: { nodeId, sessionId } });
    h.fake.userSends('/status', { userId: ADA, chatId: ADA });
    const [m] = (await h.fake.waitForChat((ms) => ms.some((x) => x.from?.is_bot === true && (x.text ?? '').includes('Editing')), { chatId: ADA })).filter((x) =>
      (x.text ?? '').includes('Editing'),
    );
    expect(m?.text).toContain('Editing src/app.ts (+12 −3) · 2 min · 5 steps');
    expect(m?.text).toContain('Context: 20% of 258,400 tokens · compactions: 1');
  });
});
