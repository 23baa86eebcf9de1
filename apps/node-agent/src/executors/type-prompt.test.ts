import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTextRefusal } from '@bria/core/protocol';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { claudePromptBox } from './screen.ts';
import { SessionHost } from './session-host.ts';
import { createRig, type Rig } from '../../test-support/test-rig.ts';
import type { HostEvent } from './types.ts';

/**
 * Texts that start with a character the TUIs give a meaning (`!` shell, `/` command, `#`, `@` file
 * mention, `?` help, a space), alone or as the first line of several, go through `SessionHost` into
 * the real CLIs: the model's request must carry exactly the sent text and nothing may run (each `!`
 * text would create its canary file). Texts the hub refuses for a CLI are not typed here.
 */
function casesFor(dir: string): string[] {
  const canary = (n: string) => join(dir, `canary-${n}`);
  return [
    `!touch ${canary('bang')} now`,
    `!touch ${canary('bang-multi')}\nsecond line`,
    `/srv/app/notes.md is the file to read`,
    '/srv/app/notes.md\nis the file to read',
    '/help me with this',
    '/unknownword please\nsecond line',
    '#note this',
    '#x\n@y',
    '@foo bar',
    'look at @src',
    '? what is this',
    '?\nwhat is this',
    '?',
    ' leading space',
    ' !touch nothing',
    'trailing space ',
    'exit',
    '!',
  ];
}

const is =
  <T extends HostEvent['type']>(type: T, messageId: string) =>
  (e: HostEvent): e is Extract<HostEvent, { type: T }> =>
    e.type === type && 'messageId' in e && e.messageId === messageId;

for (const kind of ['claude', 'codex'] as const) {
  describe(`${kind}: every leading character reaches the model byte for byte`, () => {
    let rig: Rig;
    let host: SessionHost;
    let nativeId: string;
    beforeAll(async () => {
      rig = await createRig(kind);
      host = new SessionHost({
        driver: kind === 'claude' ? claudeDriver : codexDriver,
        tmux: rig.tmux,
        bin: kind === 'claude' ? claudeBin : codexBin,
        env: rig.env,
      });
      nativeId = (await host.start({ cwd: rig.work, sessionName: `lead-${kind}` })).nativeId;
    });
    afterAll(async () => {
      await rig?.dispose();
    });

    it('delivers each text the hub accepts for this CLI exactly, and runs nothing', async () => {
      const texts = casesFor(rig.work).filter((t) => cliTextRefusal(kind, t) === null);
      // The rule keeps most of these for both CLIs; what it refuses is in cli-text.test.ts.
      expect(texts).toHaveLength(kind === 'claude' ? 10 : 15);
      for (const text of texts) {
        const messageId = randomUUID();
        const r = await host.deliver({ messageId, text });
        expect(r, JSON.stringify(text)).toMatchObject({ accepted: true });
        await host.waitFor(is('completed', messageId), 30_000);
        const req = rig.mock.requests.filter((q) => q.kind === 'turn' && q.sessionId === nativeId).at(-1);
        expect(req?.userText, JSON.stringify(text)).toBe(text);
      }
      expect(existsSync(join(rig.work, 'canary-bang'))).toBe(false);
      expect(existsSync(join(rig.work, 'canary-bang-multi'))).toBe(false);
      if (kind === 'claude') expect(claudePromptBox(await rig.tmux.capture(host.identity().paneId))).toBe('');
    });

    it('delivers a ! text exactly while a turn is running, and runs nothing', async () => {
      const main = randomUUID();
      expect(await host.deliver({ messageId: main, text: 'SLOW main request' })).toMatchObject({ accepted: true });
      await rig.mock.waitForRequest((q) => q.kind === 'turn' && q.userText === 'SLOW main request', 20_000);
      const text = `!touch ${join(rig.work, 'canary-busy')}\nwhile busy`;
      const follow = randomUUID();
      expect(await host.deliver({ messageId: follow, text })).toMatchObject({ accepted: true });
      await host.waitFor(is('completed', follow), 60_000);
      expect(rig.mock.requests.some((q) => q.kind === 'turn' && q.sessionId === nativeId && q.userText?.endsWith(text) === true)).toBe(true);
      expect(existsSync(join(rig.work, 'canary-busy'))).toBe(false);
    });
  });
}
