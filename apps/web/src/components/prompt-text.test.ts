import { describe, expect, it } from 'vitest';
import { translator } from '../i18n/catalog.ts';
import {
  codexShellName,
  commandOf,
  deadlineText,
  promptEvidenceText,
  promptStatusText,
  promptWait,
  questionAnswers,
  questionsOf,
  toolDetail,
} from './prompt-text.ts';

const en = translator('en');

describe('what a tool will do', () => {
  it("reads the command of Claude's Bash and of Codex's exec_command (string or argv)", () => {
    expect(commandOf({ command: 'npm test', description: 'Run' })).toBe('npm test');
    expect(commandOf({ cmd: 'touch x' })).toBe('touch x');
    expect(commandOf({ cmd: ['git', 'push'] })).toBe('git push');
    expect(toolDetail('Bash', { command: 'npm test', description: 'Run the tests' })).toEqual({
      kind: 'command',
      command: 'npm test',
      description: 'Run the tests',
    });
  });
  it('a Write shows the file and its first lines; an Edit a small −/+ diff', () => {
    const content = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    expect(toolDetail('Write', { file_path: '/w/a.ts', content })).toMatchObject({
      kind: 'write',
      file: '/w/a.ts',
      head: ['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 6', 'line 7', 'line 8'],
      more: 12,
    });
    expect(toolDetail('Edit', { file_path: '/w/a.ts', old_string: 'a\nb', new_string: 'c' })).toEqual({
      kind: 'edit',
      file: '/w/a.ts',
      diff: [
        { sign: '−', text: 'a' },
        { sign: '−', text: 'b' },
        { sign: '+', text: 'c' },
      ],
      more: 0,
    });
    expect(toolDetail('WebFetch', { url: 'https://x' })).toMatchObject({ kind: 'other', file: null });
  });
});

describe('questions', () => {
  const qs = questionsOf({
    questions: [
      { question: 'Color?', header: 'Color', multiSelect: false, options: [{ label: 'Red', description: 'warm' }, { label: 'Blue' }] },
      { question: 'Sizes?', header: 'Size', multiSelect: true, options: [{ label: 'S' }, { label: 'M' }] },
    ],
  });
  it('reads AskUserQuestion input and builds the answers: own words win, every question needs one', () => {
    expect(qs.map((q) => [q.question, q.multiSelect, q.options.map((o) => o.label)])).toEqual([
      ['Color?', false, ['Red', 'Blue']],
      ['Sizes?', true, ['S', 'M']],
    ]);
    expect(questionAnswers(qs, { 'Color?': ['Blue'] }, {})).toBeNull();
    expect(questionAnswers(qs, { 'Color?': ['Blue'], 'Sizes?': ['S', 'M'] }, {})).toEqual({ 'Color?': 'Blue', 'Sizes?': ['S', 'M'] });
    expect(questionAnswers(qs, { 'Color?': ['Blue'] }, { 'Sizes?': ' XL please ' })).toEqual({ 'Color?': 'Blue', 'Sizes?': 'XL please' });
  });
});

describe('status words', () => {
  it('a start dialog trusted here and ended by the CLI being ready reads as the trust having worked (issue 31, defect 1)', () => {
    const trusted = { kind: 'dialog', state: 'ended', answer: { decision: 'allow' }, answeredFrom: 'dashboard', endCause: 'cli_ready' } as const;
    expect(promptStatusText(trusted, en)).toBe('Trusted from the dashboard: the CLI started in this folder.');
    expect(promptStatusText({ ...trusted, answer: null, answeredFrom: null }, en)).toBe('The CLI started: the question was answered at the computer.');
    // Any other end of an answered request is still said as it was.
    expect(promptStatusText({ ...trusted, kind: 'tool', endCause: 'turn_completed' }, en)).toBe(
      'Answered: Allow (from the dashboard). The request ended before the answer reached the agent.',
    );
    expect(promptStatusText({ ...trusted, endCause: 'superseded' }, en)).toBe(
      'Answered: Allow (from the dashboard). The request ended before the answer reached the agent.',
    );
  });
  it("names Codex's shell tool as Codex does (its hook says Bash), and nothing else (issue 31, defect 5)", () => {
    expect(codexShellName('codex', 'Bash')).toBe('exec_command');
    expect(codexShellName('codex', 'shell')).toBe('shell');
    expect(codexShellName('codex', 'apply_patch')).toBeNull();
    expect(codexShellName('claude', 'Bash')).toBeNull();
    expect(codexShellName(undefined, 'Bash')).toBeNull();
  });
  it('say who answered what, and what a session waits for', () => {
    expect(promptStatusText({ state: 'delivered', answer: { decision: 'allow' }, answeredFrom: 'telegram' }, en)).toBe('Answered: Allow (from Telegram).');
    expect(promptStatusText({ state: 'answered', answer: { decision: 'deny', message: 'no' }, answeredFrom: 'dashboard' }, en)).toBe(
      'Answered: Deny: no (from the dashboard). On its way to the agent.',
    );
    expect(promptStatusText({ state: 'waiting_at_computer', answer: null, answeredFrom: null }, en)).toBe('Nobody answered in time: it waits at the computer.');
    expect(promptWait([{ state: 'waiting_at_computer' }, { state: 'pending' }])).toBe('answer');
    expect(promptWait([{ state: 'waiting_at_computer' }, { state: 'delivered' }])).toBe('computer');
    expect(promptWait([{ state: 'answered' }])).toBeNull();
    expect(promptEvidenceText('permission_answered', { from: 'telegram', decision: 'always_allow' }, en)).toBe(
      'Answered: Always allow for this session (from Telegram).',
    );
    expect(promptEvidenceText('session_ready', {}, en)).toBeNull();
  });
});

describe('deadlines (issue 31, defect 1)', () => {
  it("a deadline on another day says its date; today's is a time of day", () => {
    const now = new Date(2026, 11, 6, 22, 30, 5).getTime();
    const today = new Date(2026, 11, 6, 23, 0, 5).toISOString();
    const tomorrow = new Date(2026, 11, 7, 22, 30, 5).toISOString();
    expect(deadlineText(today, 'en-US', now)).toBe(new Date(today).toLocaleTimeString('en-US'));
    expect(deadlineText(tomorrow, 'en-US', now)).toContain('Dec 7, 2026');
    expect(deadlineText(tomorrow, 'en-US', now)).not.toBe(deadlineText(new Date(now).toISOString(), 'en-US', now));
  });
});
