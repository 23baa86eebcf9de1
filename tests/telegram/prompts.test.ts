// Issue 14 from the phone: the real bot process on the fake Bot API, the real node agent and the real
// Claude CLI in tmux asking for a Bash tool through Bria's hook. What the user sees in the chat,
// what they press, and what physically happened (the marker file, the model's request log, rows).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

let w: World;
let folder = '';
let sessionId = '';
beforeAll(async () => {
  w = await startWorld({ slowChunks: 2, slowChunkMs: 20 });
  folder = w.sys.folder('tg-prompts');
  sessionId = (await w.newSession('claude', folder)).sessionId;
  await w.sys.waitState(sessionId, 'Ready', 90_000);
}, 180_000);
afterAll(async () => {
  await w?.dispose();
});

/** Sends a text asking the mock model for `touch ran-<marker>` and waits for the bot's request message. */
async function askFromPhone(marker: string): Promise<Message> {
  const from = w.lastId();
  w.say(`please TOOLBASH-${marker} now`);
  return w.waitFor(
    (m) => m.message_id > from && (m.text?.startsWith('Permission request') ?? false) && (m.text?.includes(`touch ran-${marker}`) ?? false),
    90_000,
  );
}
const current = (m: Message) => w.messages().find((x) => x.message_id === m.message_id) as Message;

describe('a permission request answered from Telegram', () => {
  it('one message with the session, the command and the choices; Allow runs the tool once and the final arrives', async () => {
    const m = await askFromPhone('t1');
    expect(m.text).toContain(`Folder: ${folder}`);
    expect(m.text).toContain('Waiting for your answer.');
    expect(w.buttons(m).map((b) => b.text)).toEqual(['Allow', 'Deny', 'Deny with a reason…', 'Allow `touch ran-t1` for this session']);
    expect(existsSync(join(folder, 'ran-t1'))).toBe(false);
    const from = w.lastId();
    const press = w.press(m, 'Allow');
    expect((await w.callbackAnswer(press.callbackQueryId)).text).toBe('Allowed.');
    const final = await w.waitFor((x) => x.message_id > from && (x.text?.startsWith('TOOL-DONE-') ?? false), 90_000);
    expect(final.text).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(existsSync(join(folder, 'ran-t1'))).toBe(true);
    await waitUntil('the request message redrawn', async () => (current(m).text?.includes('Answered: Allow (from Telegram)') ? true : null), 30_000);
    expect(w.buttons(current(m))).toEqual([]);
    expect(await w.sys.db.agentCommand.count({ where: { sessionId, type: 'answer_permission' } })).toBe(1);
  }, 240_000);

  it('answered on the dashboard while the phone shows it: the Telegram message updates and a late press is told it was answered', async () => {
    const m = await askFromPhone('t2');
    const p = await w.sys.db.permissionPrompt.findFirstOrThrow({ where: { sessionId, state: 'pending' } });
    expect((await services.answerPrompt(w.sys.deps, { promptId: p.id, decision: 'allow', from: 'dashboard' })).kind).toBe('answered');
    await waitUntil('the request message redrawn', async () => (current(m).text?.includes('Answered: Allow (from the dashboard)') ? true : null), 30_000);
    // The phone still had the old buttons on screen: pressing one is refused and says who answered.
    const late = w.fake.userPresses(m.message_id, w.buttons(m).find((b) => b.text === 'Deny')!.callback_data, { force: true });
    expect((await w.callbackAnswer(late.callbackQueryId)).text).toMatch(/^Already answered: Allow \(from the dashboard\)/);
    await waitUntil('the tool ran', async () => (existsSync(join(folder, 'ran-t2')) ? true : null), 60_000);
    expect(await w.sys.db.agentCommand.count({ where: { sessionId, type: 'answer_permission', payload: { path: ['requestId'], equals: p.id } } })).toBe(1);
  }, 240_000);

  it('Deny with a reason typed as the next message: the reason reaches the model, the tool does not run, the text is not a message to the session', async () => {
    await w.sys.waitState(sessionId, 'Ready', 60_000);
    const before = (await w.sys.messages(sessionId)).length;
    const m = await askFromPhone('t3');
    const press = w.press(m, 'Deny with a reason…');
    await w.callbackAnswer(press.callbackQueryId);
    await waitUntil('the message asks for the reason', async () => (current(m).text?.includes('Send the reason for denying') ? true : null), 30_000);
    w.say('not from my phone, sorry');
    const toModel = await w.sys.mocks.claude.waitForRequest(
      (q) => q.toolResult?.isError === true && (q.toolResult.content ?? '').includes('not from my phone, sorry'),
      90_000,
    );
    expect(toModel).toBeTruthy();
    await waitUntil(
      'the request message redrawn',
      async () => (current(m).text?.includes('Denied (from Telegram): not from my phone, sorry') ? true : null),
      30_000,
    );
    await w.sys.waitMessages(sessionId, (st) => st.length === before + 1 && st[before] === 'completed', 90_000);
    expect(existsSync(join(folder, 'ran-t3'))).toBe(false);
    // The typed reason never became a message of the session.
    expect((await w.sys.messages(sessionId)).some((x) => x.text === 'not from my phone, sorry')).toBe(false);
  }, 240_000);

  it('the bot killed while a request waits: after its restart the request message arrives once and is answered once', async () => {
    await w.sys.waitState(sessionId, 'Ready', 60_000);
    const before = (await w.sys.messages(sessionId)).length;
    await w.bot.kill();
    const from = w.lastId();
    w.fake.userSends('please TOOLBASH-t4 now');
    // The update waits at the Bot API; nothing reads it while the bot is down.
    await w.bot.start();
    const m = await w.waitFor(
      (x) => x.message_id > from && (x.text?.startsWith('Permission request') ?? false) && (x.text?.includes('touch ran-t4') ?? false),
      90_000,
    );
    // Killed again once that message is recorded as sent (a kill during the send itself may repeat
    // the message: the outbox's one window, apps/bot/README.md); the press below reaches the new process.
    await waitUntil(
      'the request message recorded as sent',
      async () => {
        const rows = await w.sys.db.outbox.findMany({ where: { sessionId, kind: 'prompt' } });
        return rows.some(
          (r) => (r.payload as { phase: string }).phase === 'open' && r.status === 'sent' && JSON.stringify(r.externalId ?? '').includes(String(m.message_id)),
        )
          ? true
          : null;
      },
      30_000,
    );
    await w.bot.kill();
    await w.bot.start();
    const press = w.press(current(m), 'Allow');
    expect((await w.callbackAnswer(press.callbackQueryId)).text).toBe('Allowed.');
    await w.sys.waitMessages(sessionId, (st) => st.length === before + 1 && st[before] === 'completed', 90_000);
    expect(existsSync(join(folder, 'ran-t4'))).toBe(true);
    // (The card names the command too while it runs: live progress. Only request messages count here.)
    const shown = w
      .messages()
      .filter((x) => x.from?.is_bot && (x.text?.startsWith('Permission request') ?? false) && (x.text?.includes('touch ran-t4') ?? false));
    expect(shown).toHaveLength(1);
    const p = await w.sys.db.permissionPrompt.findFirstOrThrow({ where: { sessionId, toolInput: { path: ['command'], equals: 'touch ran-t4' } } });
    expect(await w.sys.db.agentCommand.count({ where: { type: 'answer_permission', payload: { path: ['requestId'], equals: p.id } } })).toBe(1);
  }, 240_000);
});
