import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
/** Sessions these tests opened: closed afterwards, so the specs after them find the computer as they expect. */
const opened: string[] = [];
test.afterAll(async () => {
  for (const sessionId of opened) await closeSession({ db }, { sessionId }).catch(() => undefined);
  // Until each is archived (its CLI gone), not just asked to close.
  for (const sessionId of opened)
    await expect.poll(async () => (await db.session.findUnique({ where: { id: sessionId } }))?.state ?? 'Archived', { timeout: 60_000 }).toBe('Archived');
  await db?.$disconnect();
});

/**
 * Files from the dashboard's composer (issue 34) with the real Claude CLI: a picked file and a
 * pasted image show as previews, go with the text through the queue, are stored with their SHA-256,
 * and reach the node; in the CLI's own turn (the mock model's request log) the file is named as a
 * path and the image arrives as an image block of the same bytes.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    test('a picked file and a pasted image go with the message and reach the CLI', async ({ signedInPage: page, state, request, saveShot }) => {
      test.setTimeout(240_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      const folder = path.join(state.workDir, `files-${viewport.width}-${Date.now()}`);
      mkdirSync(folder, { recursive: true });
      const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
      opened.push(s.id);
      await page.goto(`/sessions/${s.id}`);
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });

      const csv = Buffer.from(`id,name\n1,Ada ${viewport.width}\n`);
      await page.getByTestId('file-input').setInputFiles({ name: 'table.csv', mimeType: 'text/csv', buffer: csv });
      // A screenshot pasted into the text box arrives as a file, not as text.
      await page.getByTestId('message-input').evaluate((el) => {
        const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) =>
          c.charCodeAt(0),
        );
        const dt = new DataTransfer();
        dt.items.add(new File([png], 'screenshot.png', { type: 'image/png' }));
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      });
      await expect(page.getByTestId('composer-file')).toHaveCount(2);
      await expect(page.getByTestId('composer-files').locator('img')).toHaveAttribute('alt', 'screenshot.png');
      await saveShot(page, `composer-files-${viewport.width}`);
      const text = `summarise the files ${viewport.width} ${Date.now()}`;
      await page.getByTestId('message-input').fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('composer-file')).toHaveCount(0);

      await expect.poll(async () => (await db.message.findFirst({ where: { sessionId: s.id, text } }))?.status, { timeout: 120_000 }).toBe('completed');
      const m = await db.message.findFirstOrThrow({ where: { sessionId: s.id, text } });
      const stored = m.attachments as { name: string; mime: string; sizeBytes: number; sha256: string }[];
      expect(stored.map((a) => [a.name, a.mime, a.sizeBytes])).toEqual([
        ['table.csv', 'text/csv', csv.length],
        ['screenshot.png', 'image/png', 70],
      ]);
      // The turn that carried the text, once: the file named as a path, the pasted image as an image
      // (its placeholder before the text, its bytes the stored ones).
      const res = await request.get(`${state.controlURL}/mock/claude/requests`);
      const turns = (
        (await res.json()) as { kind: string; userText?: string | null; images?: { mediaType: string; sha256: string; bytes: number }[] }[]
      ).filter((r) => r.kind === 'turn' && (r.userText ?? '').includes(text));
      expect(turns).toHaveLength(1);
      expect(turns[0]?.userText).toMatch(new RegExp(`^\\[Image #\\d+\\] ${text}\\n`));
      expect(turns[0]?.userText).toMatch(/\[Attached file: \S+table\.csv \(text\/csv, \d+ B\)\]/);
      expect(turns[0]?.userText).not.toMatch(/\[Attached file: \S+screenshot\.png/);
      expect(turns[0]?.images).toEqual([{ mediaType: 'image/png', sha256: stored[1]?.sha256, bytes: 70 }]);
    });
  });
}
