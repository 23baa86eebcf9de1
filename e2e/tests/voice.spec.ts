import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import type { TranscribeRequest } from '@bria/testkit/fake-transcribe';
import config from '../playwright.config.ts';
import { expect, test } from './fixtures.ts';

/**
 * The composer's record button (issue 34) in real Chromium with its fake microphone (a test tone):
 * MediaRecorder records WebM/Opus, the upload reaches the fake OpenAI-compatible transcription
 * service the e2e server points BRIA_TRANSCRIBE_URL at, the transcript lands in the message box,
 * and Send queues it. A failing service attaches the recording instead and says why.
 */
const base = config.use?.launchOptions ?? {};
test.use({
  permissions: ['microphone'],
  launchOptions: { ...base, args: [...(base.args ?? []), '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] },
});

let db: Db;
const opened: string[] = [];
test.afterAll(async () => {
  test.setTimeout(240_000);
  for (const sessionId of opened) await closeSession({ db }, { sessionId }).catch(() => undefined);
  for (const sessionId of opened)
    await expect.poll(async () => (await db.session.findUnique({ where: { id: sessionId } }))?.state ?? 'Archived', { timeout: 180_000 }).toBe('Archived');
  await db?.$disconnect();
});

test('record, stop, the transcript goes into the box, Send queues it; a 503 attaches the recording', async ({ signedInPage: page, state, request }) => {
  test.setTimeout(300_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const folder = path.join(state.workDir, `voice-${Date.now()}`);
  mkdirSync(folder, { recursive: true });
  const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
  opened.push(s.id);
  const said = `Please run the unit tests ${Date.now()}.`;
  await request.post(`${state.controlURL}/transcribe/behave`, { data: { type: 'text', text: said } });
  const logged = async () => (await (await request.get(`${state.controlURL}/transcribe/requests`)).json()) as TranscribeRequest[];
  const before = (await logged()).length;

  await page.goto(`/sessions/${s.id}`);
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
  await page.getByTestId('rec-start').click();
  // The time counts up while recording: at least a second of the fake microphone's tone.
  await expect(page.getByTestId('rec-time')).toHaveText(/Recording 0:0[1-9]/, { timeout: 15_000 });
  await page.getByTestId('rec-stop').click();
  await expect(page.getByTestId('message-input')).toHaveValue(said, { timeout: 30_000 });
  await expect(page.getByTestId('rec-notice')).toHaveText('Transcript added to the message: check it, then press Send.');

  const [req] = (await logged()).slice(before);
  expect(req).toMatchObject({
    path: '/v1/audio/transcriptions',
    apiKey: 'sk-e2e-transcribe',
    mime: 'audio/webm',
    model: 'whisper-1',
    responseFormat: 'json',
    status: 200,
  });
  expect(req?.fileName).toMatch(/^recording-\d{14}\.webm$/);
  expect(req?.size ?? 0).toBeGreaterThan(1000);
  const note = await db.voiceNote.findFirstOrThrow({ where: { sessionId: s.id } });
  expect([note.source, note.state, note.sha256, note.sizeBytes]).toEqual(['web', 'transcribed', req?.sha256, req?.size]);

  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('message-input')).toHaveValue('', { timeout: 60_000 });
  await expect
    .poll(async () => (await db.message.findMany({ where: { sessionId: s.id }, select: { text: true } })).map((m) => m.text), { timeout: 60_000 })
    .toEqual([said]);
  // The real CLI answers it (the mock model): the session is idle again before the second recording, and closes cleanly after.
  await expect.poll(async () => (await db.message.findFirst({ where: { sessionId: s.id, text: said } }))?.status, { timeout: 120_000 }).toBe('completed');

  // The service fails: the reason and its words are shown, and the recording is attached instead.
  await request.post(`${state.controlURL}/transcribe/behave`, { data: { type: 'fail', status: 503 } });
  await page.getByTestId('rec-start').click();
  await expect(page.getByTestId('rec-time')).toHaveText(/Recording 0:0[1-9]/, { timeout: 15_000 });
  await page.getByTestId('rec-stop').click();
  await expect(page.getByTestId('rec-notice')).toContainText('Not transcribed: the transcription service had an error on its side.', { timeout: 30_000 });
  await expect(page.getByTestId('rec-notice')).toContainText('overloaded');
  await expect(page.getByTestId('composer-file')).toHaveCount(1);
  await expect(page.getByTestId('composer-file')).toContainText(/recording-\d{14}\.webm/);
  expect(await db.voiceNote.count({ where: { sessionId: s.id, state: 'failed' } })).toBe(1);
  // Sent as a file: kept as the audio it is (the recorder's "audio/webm;codecs=opus" without its parameters).
  await page.getByRole('button', { name: 'Send' }).click();
  await expect
    .poll(
      async () =>
        (await db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' } }))
          .flatMap((m) => (m.attachments ?? []) as { name: string; mime: string }[])
          .map((a) => a.mime),
      { timeout: 60_000 },
    )
    .toEqual(['audio/webm']);
  await expect
    .poll(async () => (await db.message.findMany({ where: { sessionId: s.id } })).map((m) => m.status), { timeout: 120_000 })
    .toEqual(['completed', 'completed']);
  await request.post(`${state.controlURL}/transcribe/behave`, { data: { type: 'text', text: 'Please run the unit tests.' } });
});
