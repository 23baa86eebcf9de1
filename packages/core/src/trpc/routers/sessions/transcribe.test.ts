import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';
import { type FakeTranscribe, startFakeTranscribe } from '../../../../../testkit/src/fake-transcribe/index.ts';

// The dashboard's record button (issue 34): the recording is kept with the session, sent to the
// configured service, and its transcript comes back for the message box; without a service or on a
// failure the recording is still kept and the page is told why.
const { db } = await fileDatabase();
const dir = mkdtempSync(path.join(tmpdir(), 'bria-voice-web-'));
let nodeId: string;
let fake: FakeTranscribe;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true }));
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
  fake = await startFakeTranscribe();
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const WEBM = Buffer.concat([Buffer.from('1a45dfa3', 'hex'), Buffer.from('webm recording bytes')]);
const audio = { name: 'recording.webm', mime: 'audio/webm;codecs=opus', base64: WEBM.toString('base64') };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('sessions.transcribe', () => {
  it('keeps the recording, uploads it, returns the transcript; a retried upload is not transcribed twice', async () => {
    fake.behave({ type: 'text', text: 'Run the tests again.' });
    const { caller } = await signedInCaller(db, { attachmentsDir: dir, transcribe: { baseUrl: fake.url, model: 'whisper-1', timeoutMs: 5000 } });
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/voice-1' });
    const before = fake.requests().length;
    const r = await caller.sessions.transcribe({ sessionId: s.id, clientKey: 'rec-000000001', audio });
    expect(r).toMatchObject({ configured: true, transcript: 'Run the tests again.', failure: null });
    const again = await caller.sessions.transcribe({ sessionId: s.id, clientKey: 'rec-000000001', audio });
    expect(again.noteId).toBe(r.noteId);
    const reqs = fake.requests().slice(before);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatchObject({ fileName: 'recording.webm', mime: 'audio/webm', size: WEBM.length, sha256: sha(WEBM), model: 'whisper-1' });
    const note = await db.voiceNote.findUniqueOrThrow({ where: { id: r.noteId } });
    expect([note.source, note.state, note.sha256, sha(readFileSync(note.path))]).toEqual(['web', 'transcribed', sha(WEBM), sha(WEBM)]);
    // Nothing is queued: the transcript waits in the message box for the user's Send.
    expect(await db.message.count({ where: { sessionId: s.id } })).toBe(0);
  });

  it('an unknown session: "not found", and nothing is written or uploaded', async () => {
    const { caller } = await signedInCaller(db, { attachmentsDir: dir, transcribe: { baseUrl: fake.url, model: 'whisper-1', timeoutMs: 5000 } });
    const before = fake.requests().length;
    const ghost = '00000000-0000-4000-8000-00000000dead';
    const err = await caller.sessions.transcribe({ sessionId: ghost, clientKey: 'rec-000000404', audio }).then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(err?.code).toBe('NOT_FOUND');
    expect(fake.requests().length).toBe(before);
    expect(await db.voiceNote.count({ where: { sessionId: ghost } })).toBe(0);
    expect(existsSync(path.join(dir, ghost))).toBe(false);
  });

  it('a failing service: the failure and its words come back, the recording stays', async () => {
    fake.behave({ type: 'fail', status: 429 });
    const { caller } = await signedInCaller(db, { attachmentsDir: dir, transcribe: { baseUrl: fake.url, model: 'whisper-1', timeoutMs: 5000 } });
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/voice-2' });
    const r = await caller.sessions.transcribe({ sessionId: s.id, clientKey: 'rec-000000002', audio });
    expect(r).toMatchObject({ configured: true, transcript: null, failure: 'rate_limited' });
    expect(r.words).toMatch(/Rate limit reached/);
    const note = await db.voiceNote.findUniqueOrThrow({ where: { id: r.noteId } });
    expect([note.state, sha(readFileSync(note.path))]).toEqual(['failed', sha(WEBM)]);
  });

  it('no service configured: kept, not uploaded, and the page is told', async () => {
    const { caller } = await signedInCaller(db, { attachmentsDir: dir });
    const s = await caller.sessions.create({ nodeId, executor: 'claude', folder: '/srv/voice-3' });
    const before = fake.requests().length;
    const r = await caller.sessions.transcribe({ sessionId: s.id, clientKey: 'rec-000000003', audio });
    expect(r).toMatchObject({ configured: false, transcript: null, failure: null });
    expect(fake.requests()).toHaveLength(before);
    expect((await db.voiceNote.findUniqueOrThrow({ where: { id: r.noteId } })).state).toBe('kept');
  });
});
