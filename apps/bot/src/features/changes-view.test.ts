import { describe, expect, it } from 'vitest';
import { translator } from '@bria/core/i18n';
import type { ChangesDto } from '@bria/core/services';
import { cb } from '../card/callback-data.ts';
import { diffFileName, fileArg, fileOfArg, MAX_FILE_BUTTONS, MAX_MESSAGE_CHARS, renderChanges } from './changes-view.ts';

type Changes = Extract<ChangesDto, { ok: true }>;
const t = translator('en');
const SESSION = '0b7c1a52-7a1e-4d7e-9f1c-2f0a8f1b9c01';
const changes = (files: Changes['files'], untracked: string[] = [], extra: Partial<Changes> = {}): Changes => ({
  ok: true,
  branch: 'bria/fix',
  head: 'b'.repeat(40),
  base: 'a'.repeat(40),
  baseKind: 'branch_point',
  files,
  untracked,
  dirty: true,
  truncated: false,
  ...extra,
});
const file = (path: string, added: number | null = 1, removed: number | null = 0) => ({ path, added, removed, diff: null, clipped: false });

describe('renderChanges', () => {
  it('the base, each file with +/− (binary says so), the untracked files; buttons per file and the actions', () => {
    const v = renderChanges({
      t,
      folder: '/w/app',
      baseBranch: 'main',
      c: changes([file('a.ts', 3, 1), file('logo.png', null, null)], ['new.md']),
      gen: 7,
      sessionId: SESSION,
    });
    expect(v.html).toBe(
      [
        '<b>Changes of /w/app</b>',
        'Branch bria/fix',
        'Against main where the branch started (aaaaaaa)',
        '',
        '<code>+3 −1</code> a.ts',
        '<code>binary</code> logo.png',
        '',
        'Untracked: new.md',
      ].join('\n'),
    );
    const rows = v.keyboard.inline_keyboard.map((r) => r.map((b) => b.text));
    expect(rows).toEqual([['Whole diff'], ['📄 a.ts', '📄 logo.png'], ['Draft message', 'Commit all'], ['Push']]);
    const data = v.keyboard.inline_keyboard.flat().map((b) => cb.decode((b as { callback_data: string }).callback_data));
    expect(data[1]).toEqual({ a: 'gdiff', gen: 7, sessionId: SESSION, arg: fileArg(0, 'a.ts') });
  });

  it('stays within Telegram’s limits with many and long paths; escapes HTML', () => {
    const many = Array.from({ length: 400 }, (_, i) => file(`src/${'deep/'.repeat(8)}file-${i}-<x>.ts`));
    const v = renderChanges({
      t,
      folder: '/w',
      baseBranch: null,
      c: changes(many, ['a&b.txt'], { baseKind: 'head', truncated: true }),
      gen: 1,
      sessionId: SESSION,
    });
    expect(v.html.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(v.html).toContain('&lt;x&gt;');
    expect(v.html).not.toContain('<x>');
    expect(v.html).toMatch(/… and \d+ more/);
    expect(v.html).toContain('More files changed than can be listed.');
    expect(v.keyboard.inline_keyboard.flat().filter((b) => b.text.startsWith('📄'))).toHaveLength(MAX_FILE_BUTTONS);
    for (const b of v.keyboard.inline_keyboard.flat()) expect(Buffer.byteLength((b as { callback_data: string }).callback_data)).toBeLessThanOrEqual(64);
  });

  it('no changes', () => {
    const v = renderChanges({ t, folder: '/w', baseBranch: null, c: changes([], [], { baseKind: 'session_start', branch: null }), gen: 1, sessionId: SESSION });
    expect(v.html).toBe(['<b>Changes of /w</b>', 'Since the session started (aaaaaaa)', '', 'No changes.'].join('\n'));
    expect(v.keyboard.inline_keyboard.flat().map((b) => b.text)).toEqual(['Draft message', 'Commit all', 'Push']);
  });
});

describe('fileOfArg', () => {
  const files = [{ path: 'a.ts' }, { path: 'b.ts' }];
  it.each([
    [fileArg(0, 'a.ts'), 'a.ts'],
    [fileArg(1, 'b.ts'), 'b.ts'],
    // The list changed since the button was drawn: another file at that place is not sent.
    [fileArg(1, 'c.ts'), null],
    [fileArg(5, 'a.ts'), null],
    ['1', null],
    ['x.abcd', null],
  ])('%s → %s', (arg, want) => {
    expect(fileOfArg(arg, files)).toBe(want);
  });
});

describe('diffFileName', () => {
  it.each([
    [{ branch: 'bria/fix-login', folder: '/w/app' }, 'bria-fix-login.diff'],
    [{ branch: null, folder: '/w/app/' }, 'app.diff'],
    [{ branch: 'main', folder: '/w', path: 'src/a b.ts' }, 'src-a-b.ts.diff'],
    [{ branch: null, folder: '/' }, 'changes.diff'],
  ])('%j → %s', (o, want) => {
    expect(diffFileName(o)).toBe(want);
  });
});
