import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, startSystem, type System } from '../../packages/testkit/src/system.ts';
import { assertInvariants } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

// The whole path (acceptMessage → engine → hub → agent → real CLI in tmux → mock model) for texts
// whose first character the TUIs give a meaning: each is queued while the session starts and must
// reach the model as its own request, byte for byte, with nothing run (the ! texts would create a file).
describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('texts starting with /, !, #, @, ? (alone or as the first line) reach the model exactly; nothing runs', async () => {
    const folder = sys.folder(`leading-${executor}`);
    const s = await sys.createSession(executor, folder);
    const texts = [
      `!touch ${join(folder, 'canary')} now`,
      `!touch ${join(folder, 'canary-multi')}\nand a second line`,
      '/srv/app/notes.md is the file to read',
      '#note this\n@mention there',
      '@foo bar',
      '? what is this\n/srv/next line',
      ...(executor === 'codex' ? ['/help me with this', '/unknownword please\nsecond line', '?'] : []),
    ];
    for (const t of texts) await sys.send(s.id, t);
    const msgs = await sys.waitMessages(s.id, (st) => st.length === texts.length && st.every((x) => x === 'completed'), 120_000);
    expect(msgs.map((m) => m.text)).toEqual(texts);
    const native = (await sys.session(s.id)).nativeSessionId!;
    // Claude queues texts typed during a running turn and may merge them into one request; Codex folds
    // them into the running turn: each text is then the end of some request's last user message.
    const seen = sys.turns(executor, native).map((r) => r.userText ?? '');
    for (const t of texts)
      expect(
        seen.some((u) => u === t || u.endsWith(`\n${t}`)),
        JSON.stringify(t),
      ).toBe(true);
    expect(existsSync(join(folder, 'canary'))).toBe(false);
    expect(existsSync(join(folder, 'canary-multi'))).toBe(false);
    await assertInvariants(sys, [s.id]);
  });
});
