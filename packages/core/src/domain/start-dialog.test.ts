import { describe, expect, it } from 'vitest';
import { folderRefusal, isAbsoluteFolder } from './folder-rule.ts';
import { waitingDialog } from './start-dialog.ts';

const ev = (event: string, evidence: unknown = null) => ({ event, evidence });

describe('waitingDialog (the session page and any front end alike)', () => {
  it.each([
    {
      name: 'the latest start fact is a dialog',
      state: 'Starting',
      evidence: [ev('created'), ev('blocked_on_prompt', { text: 'Trust this folder?' })],
      out: 'Trust this folder?',
    },
    {
      name: 'recovering a start on a dialog',
      state: 'AwaitingRecovery',
      evidence: [ev('blocked_on_prompt', { text: 'Trust?' }), ev('observer_lost')],
      out: 'Trust?',
    },
    { name: 'the CLI got past it', state: 'Starting', evidence: [ev('blocked_on_prompt', { text: 'Trust?' }), ev('cli_ready')], out: null },
    {
      name: 'a verified exit ends it',
      state: 'AwaitingRecovery',
      evidence: [ev('blocked_on_prompt', { text: 'Trust?' }), ev('process_exited_verified')],
      out: null,
    },
    { name: 'not a starting state', state: 'Ready', evidence: [ev('blocked_on_prompt', { text: 'Trust?' })], out: null },
    { name: 'blank text', state: 'Starting', evidence: [ev('blocked_on_prompt', { text: '  ' })], out: null },
    { name: 'no evidence body', state: 'Starting', evidence: [{ event: 'blocked_on_prompt' }], out: null },
  ])('$name', ({ state, evidence, out }) => {
    expect(waitingDialog(state, evidence)).toBe(out);
  });
});

describe('the folder rule', () => {
  it.each([
    { folder: '/home/u/app', out: null },
    { folder: 'home/u', out: 'folder must be an absolute path' },
    { folder: `/${'a'.repeat(4096)}`, out: 'folder must be an absolute path' },
    { folder: '/a/\tb', out: 'folder must not contain control characters' },
    { folder: '/a/../b', out: 'folder must not contain . or .. segments' },
    { folder: '/a/./b', out: 'folder must not contain . or .. segments' },
    { folder: '/a/..b', out: null },
  ])('$folder', ({ folder, out }) => {
    expect(folderRefusal(folder)).toBe(out);
    expect(isAbsoluteFolder(folder)).toBe(folder.startsWith('/'));
  });
});
