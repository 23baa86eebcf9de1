import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@bria/core/db';
import { acceptMessage, createSession } from '@bria/core/services';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { dbFingerprint } from './support.ts';

/**
 * The message door (`acceptMessage`, used by the bot and the dashboard): texts that could not reach
 * a CLI as typed, or are too big, are refused before anything is stored; hostile but printable texts
 * are stored byte-exact (delivery of those to the real CLI is proved in hostile-delivery.test.ts).
 */
let tdb: TestDatabase;
let db: Db;
let sessionId: string;
const NODE = '00000000-0000-4000-8000-0000000000e1';

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  await db.node.create({ data: { id: NODE, name: 'n', online: true, enabledExecutors: ['claude'] } });
  sessionId = (await createSession({ db }, { nodeId: NODE, folder: '/srv/p' })).id;
});
afterAll(async () => {
  await db?.$disconnect();
  await tdb?.drop();
});

describe('acceptMessage refuses what cannot be delivered as typed', () => {
  const cases: [string, string][] = [
    ['an escape sequence', 'clear \u001b[2J the screen'],
    ['an OSC title sequence', '\u001b]0;pwned\u0007'],
    ['Ctrl-C', 'stop \u0003 now'],
    ['Ctrl-D', '\u0004'],
    ['a carriage return', 'line\rover'],
    ['a NUL byte', 'a\u0000b'],
    ['DEL', 'x\u007f'],
    ['1 MB of text', 'x'.repeat(1024 * 1024)],
    ['nothing', ''],
  ];
  for (const [name, text] of cases) {
    it(`${name}: INVALID_INPUT, nothing stored, no command`, async () => {
      const before = await dbFingerprint(tdb.url);
      const err = await acceptMessage({ db }, { sessionId, text, source: 'web' }).then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
      expect(err?.code).toBe('INVALID_INPUT');
      expect(await dbFingerprint(tdb.url)).toEqual(before);
    });
  }

  it('control: shell and tmux metacharacters, tabs, newlines and 200 000 characters are stored byte-exact', async () => {
    const texts = ['$(touch /tmp/x) `id` ; rm -rf / && C-c Enter #{pane_pid}', 'tab\there\nnew line', '€'.repeat(200_000)];
    for (const text of texts) {
      const r = await acceptMessage({ db }, { sessionId, text, source: 'web' });
      expect((await db.message.findUniqueOrThrow({ where: { id: r.message.id } })).text).toBe(text);
    }
  });
});
