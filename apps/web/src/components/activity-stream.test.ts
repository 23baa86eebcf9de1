import { describe, expect, it } from 'vitest';
import { translator } from '../i18n/catalog.ts';
import {
  type ActivityRow,
  activityLine,
  awaitingSteps,
  contextText,
  type CurrentActivityView,
  diffLines,
  duration,
  isWorking,
  lineText,
  placeActivity,
  stepMs,
  storedAnchors,
} from './activity-stream.ts';

const en = translator('en');
const ru = translator('ru');

let nextId = 1;
function row(o: Partial<ActivityRow> & { startedAt: string }): ActivityRow {
  const id = String(nextId++);
  return {
    id,
    ref: `ref-${id}`,
    nativeTurnId: null,
    messageId: null,
    kind: 'command',
    toolName: 'Bash',
    subject: 'npm test',
    status: 'ok',
    exitCode: 0,
    outputHead: null,
    diffAdded: null,
    diffRemoved: null,
    diffText: null,
    text: null,
    sourceRecordId: `rec-${id}`,
    sourceOffset: 0,
    eventSeq: 1,
    endedAt: null,
    ...o,
  };
}
const at = (s: number) => new Date(Date.UTC(2026, 11, 4, 12, 0, s)).toISOString();
const ids = (rows: readonly ActivityRow[] | undefined) => rows?.map((r) => r.ref) ?? [];

describe('placeActivity', () => {
  it('puts rows under the turn of their main request, in time order, and loose rows after the turn that began before them', () => {
    const anchors = storedAnchors([
      { id: 'm1', mainMessageId: null, createdAt: at(0) },
      { id: 'm2', mainMessageId: null, createdAt: at(20) },
    ]);
    const late = row({ ref: 'late', messageId: 'm1', startedAt: at(9) });
    const early = row({ ref: 'early', messageId: 'm1', startedAt: at(1) });
    const computer = row({ ref: 'pc', nativeTurnId: 'T9', startedAt: at(12) });
    const computer2 = row({ ref: 'pc2', nativeTurnId: 'T9', startedAt: at(13) });
    const before = row({ ref: 'before', startedAt: '2026-12-04T11:00:00.000Z' });
    const second = row({ ref: 'second', messageId: 'm2', startedAt: at(21) });
    const p = placeActivity(anchors, [second, late, computer2, early, computer, before]);
    expect(ids(p.byTurn.get('m1'))).toEqual(['early', 'late']);
    expect(ids(p.byTurn.get('m2'))).toEqual(['second']);
    expect(p.after.get('m1')?.map((g) => [g.nativeTurnId, g.messageId, ids(g.rows)])).toEqual([['T9', null, ['pc', 'pc2']]]);
    expect(p.after.get('')?.map((g) => ids(g.rows))).toEqual([['before']]);
    expect(p.after.get('m2')).toBeUndefined();
  });

  it("a follow-up shares its main request's rows, shown once under the first of them on screen", () => {
    const anchors = storedAnchors([
      { id: 'f1', mainMessageId: 'main', createdAt: at(5) },
      { id: 'f2', mainMessageId: 'main', createdAt: at(6) },
    ]);
    const p = placeActivity(anchors, [row({ ref: 'x', messageId: 'main', startedAt: at(7) })]);
    expect(ids(p.byTurn.get('f1'))).toEqual(['x']);
    expect(p.byTurn.get('f2')).toBeUndefined();
  });

  it('a journal turn claims rows by its own turn id before the message id; a request not on screen is no "computer" activity', () => {
    const anchors = [
      { key: 'U1', messageIds: ['m1'], nativeTurnId: 'U1', at: at(0) },
      { key: 'U2', messageIds: [], nativeTurnId: 'U2', at: null },
    ];
    const p = placeActivity(anchors, [
      row({ ref: 'a', nativeTurnId: 'U2', messageId: 'm1', startedAt: at(3) }),
      row({ ref: 'b', nativeTurnId: 'U1', startedAt: at(2) }),
      row({ ref: 'c', messageId: 'gone', startedAt: at(4) }),
    ]);
    expect(ids(p.byTurn.get('U1'))).toEqual(['b']);
    expect(ids(p.byTurn.get('U2'))).toEqual(['a']);
    // U2 has no time of its own: it stands where U1 did, so the loose group follows it.
    expect(p.after.get('U2')?.map((g) => [g.messageId, ids(g.rows)])).toEqual([['gone', ['c']]]);
  });
});

describe('diffLines', () => {
  it('colours added, removed, hunk and header lines; "---" inside a hunk is a removed line', () => {
    const text =
      '--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n--- old comment\n\\ No newline at end of file\n';
    expect(diffLines(text).map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'context', 'del', 'add', 'del', 'meta']);
    expect(diffLines(text)[5]).toEqual({ kind: 'add', text: '+const b = 3;' });
  });

  it('a diff without headers still colours its lines', () => {
    expect(diffLines('-x\n+y').map((l) => l.kind)).toEqual(['del', 'add']);
  });
});

describe('durations', () => {
  it('a finished step lasts from start to end; a running one until now; an unknown end has none', () => {
    expect(stepMs({ startedAt: at(0), endedAt: at(3), status: 'ok' }, 0)).toBe(3000);
    expect(stepMs({ startedAt: at(0), endedAt: null, status: 'running' }, Date.parse(at(45)))).toBe(45_000);
    expect(stepMs({ startedAt: at(0), endedAt: null, status: 'ok' }, Date.parse(at(45)))).toBeNull();
    expect([350, 45_000, 180_000, 3_900_000].map((ms) => duration(en, ms))).toEqual(['350 ms', '45 s', '3 min', '1 h 5 min']);
  });
});

describe('activityLine', () => {
  const base: CurrentActivityView = {
    kind: 'command',
    toolName: 'Bash',
    subject: 'npm test\n--watch=false',
    status: 'running',
    added: null,
    removed: null,
    reads: 0,
    steps: 5,
    nativeTurnId: 'T1',
    turnStartedAt: at(0),
    at: at(100),
  };
  const now = Date.parse(at(180));

  it('says what the session does, the subject as code, with time and steps', () => {
    expect(lineText(activityLine(en, base, now))).toBe('Running `npm test` · 3 min · 5 steps');
    expect(lineText(activityLine(ru, { ...base, steps: 2 }, now))).toBe('Выполняет `npm test` · 3 мин · 2 шага');
    expect(
      activityLine(en, base, now)
        .filter((p) => p.code)
        .map((p) => p.text),
    ).toEqual(['npm test']);
  });

  it('edits count lines, reads count files, a failed command says so, paths are shortened', () => {
    const edit = { ...base, kind: 'edit', toolName: 'Edit', subject: '/work/app/src/login.ts', status: 'ok', added: 4, removed: 1, steps: 1 };
    expect(lineText(activityLine(en, edit, now))).toBe('Edited `src/login.ts` (+4 −1) · 3 min · 1 step');
    expect(lineText(activityLine(en, { ...edit, kind: 'read', reads: 3 }, now))).toBe('Reading 3 files · 3 min · 1 step');
    expect(lineText(activityLine(en, { ...base, status: 'error' }, now))).toBe('Ran `npm test`: failed · 3 min · 5 steps');
    expect(lineText(activityLine(en, { ...base, kind: 'tool', toolName: 'WebFetch', subject: null }, now))).toBe('Using WebFetch · 3 min · 5 steps');
  });

  it('shows activity only while a turn is worked on', () => {
    expect(['Running', 'Stopping', 'ClosingAfterWork', 'Ready', 'Archived'].map((s) => isWorking(s as 'Running'))).toEqual([true, true, true, false, false]);
  });
});

describe('contextText', () => {
  it('percent of a known window, the model-name window said so, tokens only when unknown', () => {
    expect(contextText(en, { usedTokens: 108_528, windowTokens: 258_400, windowSource: 'journal', percent: 42, compactions: 0 }, 'en')).toBe(
      '42% of 258,400 tokens',
    );
    expect(contextText(en, { usedTokens: 9_000, windowTokens: 200_000, windowSource: 'model', percent: 4.5, compactions: 1 }, 'en')).toBe(
      '4.5% of 200,000 tokens (window from the model name)',
    );
    expect(contextText(en, { usedTokens: 9_000, windowTokens: null, windowSource: null, percent: null, compactions: 0 }, 'en')).toBe(
      '9,000 tokens (window size unknown)',
    );
  });
});

describe('awaitingSteps (issue 31, defect 5)', () => {
  const tool = (state: string, toolName: string, toolInput: Record<string, unknown>) => ({ kind: 'tool', state, toolName, toolInput });
  it("a running command step of the command a request waits on waits, not runs: Codex's exec_command under its hook's Bash", () => {
    const asked = row({ startedAt: at(1), status: 'running', toolName: 'exec_command', subject: 'touch ran-c1', exitCode: null });
    const other = row({ startedAt: at(2), status: 'running', toolName: 'exec_command', subject: 'ls', exitCode: null });
    const done = row({ startedAt: at(0), status: 'ok', toolName: 'exec_command', subject: 'touch ran-c1' });
    const waiting = awaitingSteps([asked, other, done], [tool('pending', 'Bash', { command: 'touch ran-c1', description: 'x' })]);
    expect([...waiting]).toEqual([asked.id]);
    // Left to the computer: it still waits for an answer, there.
    expect([...awaitingSteps([asked], [tool('waiting_at_computer', 'Bash', { command: 'touch ran-c1' })])]).toEqual([asked.id]);
  });
  it('a long command cut in its subject still matches by its first line; an answered request no longer holds its step', () => {
    const long = row({ startedAt: at(1), status: 'running', subject: 'npm run build -- --very…', exitCode: null });
    expect([...awaitingSteps([long], [tool('pending', 'Bash', { command: 'npm run build -- --very-long-flag\necho done' })])]).toEqual([long.id]);
    expect(awaitingSteps([long], [tool('answered', 'Bash', { command: 'npm run build -- --very-long-flag' })]).size).toBe(0);
    expect(awaitingSteps([long], [tool('delivered', 'Bash', { command: 'npm run build -- --very-long-flag' })]).size).toBe(0);
  });
  it('a file tool waits by its name; questions and start dialogs hold no step; no prompts, no waiting step', () => {
    const write = row({ startedAt: at(1), status: 'running', kind: 'write', toolName: 'Write', subject: 'a.ts', exitCode: null });
    expect([...awaitingSteps([write], [tool('pending', 'Write', { file_path: 'a.ts', content: 'x' })])]).toEqual([write.id]);
    expect(awaitingSteps([write], [{ kind: 'question', state: 'pending', toolName: 'Write', toolInput: {} }]).size).toBe(0);
    expect(awaitingSteps([write], undefined).size).toBe(0);
  });
});
