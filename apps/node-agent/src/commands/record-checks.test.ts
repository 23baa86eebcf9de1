import type { SessionEventOut } from '@bria/core/protocol';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { journalFilesOnDisk } from './journal-content.ts';
import { closeJournal, type JournalFiles, journalNotYetWritten, journalState, mayHaveTyped, onlyUnboundMarks } from './record-checks.ts';
import type { SessionRecord } from './registry.ts';

type Identity = NonNullable<SessionRecord['identity']>;
const identity = (journalPath: string | null, cwd = '/w') =>
  ({
    tmuxSocket: 's',
    tmuxSession: 't',
    paneId: '%1',
    panePid: 1,
    cliPid: 2,
    cliStartTime: '3',
    cwd,
    nativeId: 'n',
    journalPath,
    exitFile: 'x',
  }) as unknown as Identity;

const rec = (over: Partial<SessionRecord> = {}, journal: string | null = '/j/absent.jsonl', cwd = '/w'): SessionRecord => ({
  sessionId: 's1',
  executor: 'codex',
  folder: cwd,
  generation: 2,
  identity: identity(journal, cwd),
  journalOffset: 0,
  turns: [],
  unconfirmed: [],
  deliveries: [],
  status: 'exited',
  recent: [],
  ...over,
});

/** Journal files in memory: `true` holds a conversation, `false` only metadata lines; absent: no file. */
const files = (map: Record<string, boolean>): JournalFiles => ({
  exists: (f) => f in map,
  holdsConversation: (f) => map[f] ?? true,
});
const disk = files({ '/j/convo.jsonl': true, '/j/meta.jsonl': false });
const mark = (nativeRef?: string) => ({ messageId: 'm', at: 1, ...(nativeRef ? { nativeRef } : {}) });
const turn = { messageId: 'm', nativeRef: 'r' };
const fact: SessionEventOut = { event: 'turn_final', payload: { nativeTurnId: 't1', text: 'answer' } };

describe('mayHaveTyped (table)', () => {
  it.each<[string, SessionRecord | undefined, RegExp | null]>([
    ['no record', undefined, null],
    ['a fresh record, journal not on disk', rec(), null],
    ['no identity', rec({ identity: null }), null],
    ['a journal of metadata lines only', rec({}, '/j/meta.jsonl'), null],
    ['a record from before delivery marks', rec({ deliveries: undefined }), /predates delivery marks/],
    ['before marks wins over a turn', rec({ deliveries: undefined, turns: [turn] }), /predates delivery marks/],
    ['a delivery mark without receipt', rec({ deliveries: [mark()] }), /delivery mark/],
    ['a delivery mark with receipt', rec({ deliveries: [mark('r')] }), /delivery mark/],
    ['a bound turn', rec({ turns: [turn] }), /took a turn/],
    ['an unconfirmed paste', rec({ unconfirmed: ['m'] }), /took a turn/],
    ['a turn fact kept for replay', rec({ recent: [fact] }), /took a turn/],
    ['an orphaned turn', rec({ orphans: ['m'] }), /took a turn/],
    ['journal bytes read', rec({ journalOffset: 10 }), /journal was read/],
    ['a journal holding a conversation', rec({}, '/j/convo.jsonl'), /journal holds a conversation \(convo\.jsonl\)/],
  ])('%s', (_, r, expected) => {
    const why = mayHaveTyped(r, disk);
    if (expected) expect(why).toMatch(expected);
    else expect(why).toBeNull();
  });
});

describe('onlyUnboundMarks (table)', () => {
  it.each<[string, SessionRecord, boolean]>([
    ['no marks', rec(), false],
    ['no marks kept (old record)', rec({ deliveries: undefined }), false],
    ['marks without a receipt and nothing else', rec({ deliveries: [mark(), { ...mark(), messageId: 'm2' }] }), true],
    ['a mark with a receipt', rec({ deliveries: [mark(), { ...mark('r'), messageId: 'm2' }] }), false],
    ['marks and an unconfirmed paste', rec({ deliveries: [mark()], unconfirmed: ['m'] }), false],
    ['marks and journal bytes read', rec({ deliveries: [mark()], journalOffset: 5 }), false],
    ['marks and a conversation in the journal', rec({ deliveries: [mark()] }, '/j/convo.jsonl'), false],
    ['marks and a metadata-only journal', rec({ deliveries: [mark()] }, '/j/meta.jsonl'), true],
  ])('%s', (_, r, expected) => {
    expect(onlyUnboundMarks(r, disk)).toBe(expected);
  });
});

describe('journalState (table)', () => {
  it.each<[string, SessionRecord, (string | null | undefined)[], 'none' | 'missing' | 'present']>([
    ['no file, nothing typed', rec(), ['/j/absent.jsonl', null, undefined], 'none'],
    ['no file, a mark', rec({ deliveries: [mark()] }), ['/j/absent.jsonl'], 'missing'],
    ['no file, journal bytes read', rec({ journalOffset: 3 }), [], 'missing'],
    ['a conversation in a candidate', rec(), [null, '/j/convo.jsonl'], 'present'],
    ['a conversation, also with a mark', rec({ deliveries: [mark()] }), ['/j/convo.jsonl'], 'present'],
    ['metadata only, nothing typed', rec(), ['/j/meta.jsonl'], 'none'],
    ['metadata only, a turn', rec({ turns: [turn] }), ['/j/meta.jsonl'], 'missing'],
    // Only the files named count: the record's own journal path is passed by the caller when it matters.
    ['the identity journal not among the candidates', rec({}, '/j/convo.jsonl'), [], 'none'],
  ])('%s', (_, r, candidates, expected) => {
    expect(journalState(r, candidates, disk)).toBe(expected);
  });
});

describe('closeJournal (table)', () => {
  it.each<[string, SessionRecord, string | null, { path?: unknown } | null | undefined, string]>([
    ['nothing archived, no journal, nothing typed', rec(), null, null, 'none'],
    ['nothing archived, no journal, a mark', rec({ deliveries: [mark()] }), null, undefined, 'missing'],
    ['nothing archived, the journal holds a conversation', rec(), '/j/convo.jsonl', null, 'present'],
    ['the record journal holds a conversation', rec({}, '/j/convo.jsonl'), null, null, 'present'],
    ['archived copy of a conversation', rec(), null, { path: '/j/convo.jsonl' }, 'archived'],
    ['archived copy of metadata only', rec(), '/j/meta.jsonl', { path: '/j/meta.jsonl' }, 'archived_empty'],
    ['archived without a path, something typed', rec({ journalOffset: 1 }), null, {}, 'archived'],
    ['archived without a path, nothing typed', rec(), null, { path: 7 }, 'archived_empty'],
  ])('%s', (_, r, journal, archived, expected) => {
    expect(closeJournal(r, journal, archived, disk)).toBe(expected);
  });
});

describe('journalNotYetWritten (table)', () => {
  it.each<[string, SessionRecord, Identity, boolean]>([
    ['no journal path', rec(), identity(null), false],
    ['the journal exists', rec(), identity('/j/meta.jsonl'), false],
    ['an old record without marks', rec({ deliveries: undefined }), identity('/j/absent.jsonl'), false],
    ['nothing bound yet', rec(), identity('/j/absent.jsonl'), true],
    ['a mark without a receipt', rec({ deliveries: [mark()] }), identity('/j/absent.jsonl'), true],
    ['an unconfirmed paste only', rec({ unconfirmed: ['m'] }), identity('/j/absent.jsonl'), true],
    ['a receipt bound to a mark', rec({ deliveries: [mark('r')] }), identity('/j/absent.jsonl'), false],
    ['an open turn', rec({ turns: [turn] }), identity('/j/absent.jsonl'), false],
    ['journal bytes read', rec({ journalOffset: 9 }), identity('/j/absent.jsonl'), false],
    ['a turn fact kept', rec({ recent: [fact] }), identity('/j/absent.jsonl'), false],
  ])('%s', (_, r, id, expected) => {
    expect(journalNotYetWritten(r, id, disk)).toBe(expected);
  });
});

// The agent's own check before it starts a session's CLI again (domain README, decision 7), on real files.
describe('mayHaveTyped', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-start-again-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const onDisk = (over: Partial<SessionRecord> = {}) => rec(over, path.join(dir, 'absent.jsonl'), dir);

  it('nothing ever typed: a start again is allowed', () => {
    expect(mayHaveTyped(undefined, journalFilesOnDisk)).toBeNull();
    expect(mayHaveTyped(onDisk(), journalFilesOnDisk)).toBeNull();
    expect(mayHaveTyped(onDisk({ identity: null }), journalFilesOnDisk)).toBeNull();
  });

  it('any trace of a message refuses it', () => {
    expect(mayHaveTyped(onDisk({ deliveries: [{ messageId: 'm', at: 1 }] }), journalFilesOnDisk)).toMatch(/delivery mark/);
    expect(mayHaveTyped(onDisk({ deliveries: undefined }), journalFilesOnDisk)).toMatch(/predates delivery marks/);
    expect(mayHaveTyped(onDisk({ unconfirmed: ['m'] }), journalFilesOnDisk)).toMatch(/took a turn/);
    expect(mayHaveTyped(onDisk({ turns: [{ messageId: 'm', nativeRef: 'r' }] as SessionRecord['turns'] }), journalFilesOnDisk)).toMatch(/took a turn/);
    expect(
      mayHaveTyped(
        onDisk({ recent: [{ event: 'evidence_unknown', payload: { messageId: '00000000-0000-4000-8000-000000000001', processAlive: true } }] }),
        journalFilesOnDisk,
      ),
    ).toMatch(/took a turn/);
    expect(mayHaveTyped(onDisk({ journalOffset: 10 }), journalFilesOnDisk)).toMatch(/journal was read/);
    const journal = path.join(dir, 'present.jsonl');
    writeFileSync(journal, '{"type":"user"}\n');
    expect(mayHaveTyped(onDisk({ identity: identity(journal, dir) }), journalFilesOnDisk)).toMatch(/journal holds a conversation/);
    // Claude's mode-only journal (written on exit before any prompt) is no conversation.
    const meta = path.join(dir, 'meta-only.jsonl');
    writeFileSync(meta, '{"type":"mode","mode":"normal"}\n');
    expect(mayHaveTyped(onDisk({ identity: identity(meta, dir) }), journalFilesOnDisk)).toBeNull();
  });
});
