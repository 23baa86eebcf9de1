import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

// The dashboard's door for texts its session's CLI could not pass on as sent: refused with the
// catalog sentence the page shows (never stored, never altered); every other leading character is stored exactly.
const { db } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true }));
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
});

let k = 0;
const key = () => `cli-text-${String(++k).padStart(4, '0')}`;

describe('sessions.sendMessage and what a CLI cannot take as sent', () => {
  for (const executor of ['claude', 'codex'] as const) {
    it(`${executor}: refusals carry their reason; accepted texts are stored byte for byte`, async () => {
      const { caller } = await signedInCaller(db);
      const s = await caller.sessions.create({ nodeId, executor, folder: `/srv/${executor}` });
      const refused: [string, string][] = [
        [' leading space', 'msg.refusedCliWhitespace'],
        ['trailing newline\n', 'msg.refusedCliWhitespace'],
      ];
      if (executor === 'claude')
        refused.push(
          ['/help me', 'msg.refusedCliCommand'],
          ['/unknownword\nsecond', 'msg.refusedCliCommand'],
          ['exit', 'msg.refusedCliWord'],
          ['?', 'msg.refusedCliWord'],
        );
      for (const [text, reason] of refused) {
        const e = await caller.sessions.sendMessage({ sessionId: s.id, text, clientKey: key() }).then(
          () => null,
          (x: unknown) => x,
        );
        expect(e, JSON.stringify(text)).toBeInstanceOf(TRPCError);
        expect((e as TRPCError).code).toBe('BAD_REQUEST');
        expect((e as TRPCError).message).toBe(reason);
      }
      const accepted = [
        '!touch flag now',
        '/srv/app/notes.md is the file to read',
        '#note',
        '@foo bar',
        '? what\nnext',
        ...(executor === 'codex' ? ['/help me', 'exit', '?'] : []),
      ];
      for (const text of accepted) await caller.sessions.sendMessage({ sessionId: s.id, text, clientKey: key() });
      expect((await db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { text: true } })).map((m) => m.text)).toEqual(accepted);
    });
  }
});
