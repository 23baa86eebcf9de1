import { describe, expect, it } from 'vitest';
import { type AnsweredRequest, answerRefusal, cleanAnswer, type PermissionAnswer, permissionHookOutput, requestKind } from './hook-answers.ts';

const claudeBash: AnsweredRequest = { executor: 'claude', kind: 'tool', toolName: 'Bash', toolInput: { command: 'npm test --watch' } };
const claudeWrite: AnsweredRequest = { executor: 'claude', kind: 'tool', toolName: 'Write', toolInput: { file_path: '/a', content: 'x' } };
const claudeQuestion: AnsweredRequest = {
  executor: 'claude',
  kind: 'question',
  toolName: 'AskUserQuestion',
  toolInput: { questions: [{ question: 'Which?' }] },
};
const codexBash: AnsweredRequest = { executor: 'codex', kind: 'tool', toolName: 'Bash', toolInput: { command: 'ls', description: 'why' } };
const out = (decision: unknown) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

describe("the hook's answer JSON, per CLI and answer", () => {
  it.each<{ name: string; r: AnsweredRequest; a: PermissionAnswer; json: unknown }>([
    { name: 'Claude allow', r: claudeBash, a: { behavior: 'allow' }, json: out({ behavior: 'allow' }) },
    { name: 'Codex allow', r: codexBash, a: { behavior: 'allow' }, json: out({ behavior: 'allow' }) },
    { name: "deny with the user's reason", r: codexBash, a: { behavior: 'deny', message: 'not now' }, json: out({ behavior: 'deny', message: 'not now' }) },
    {
      name: 'deny without a reason',
      r: claudeBash,
      a: { behavior: 'deny', message: '  ' },
      json: out({ behavior: 'deny', message: 'Denied by the user through Bria' }),
    },
    {
      name: 'Claude always-allow of Bash: the exact command as its rule',
      r: claudeBash,
      a: { behavior: 'allow', alwaysAllow: true },
      json: out({
        behavior: 'allow',
        updatedPermissions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test --watch' }], behavior: 'allow', destination: 'session' }],
      }),
    },
    {
      name: 'Claude always-allow of Write is no rule at all (never a tool-wide one): a plain allow',
      r: claudeWrite,
      a: { behavior: 'allow', alwaysAllow: true },
      json: out({ behavior: 'allow' }),
    },
    {
      name: 'Claude question: its own questions, multi-select labels joined',
      r: claudeQuestion,
      a: { behavior: 'allow', answers: { 'Which?': ['A', 'B'] } },
      json: out({ behavior: 'allow', updatedInput: { questions: [{ question: 'Which?' }], answers: { 'Which?': 'A, B' } } }),
    },
  ])('$name', ({ r, a, json }) => {
    expect(permissionHookOutput(a, r)).toEqual(json);
  });
});

describe('which answers a request takes, per CLI', () => {
  it.each<{ name: string; r: AnsweredRequest; a: PermissionAnswer; refusal: string | null }>([
    { name: 'Claude tool, always-allow', r: claudeBash, a: { behavior: 'allow', alwaysAllow: true }, refusal: null },
    { name: 'Claude tool, deny + always-allow', r: claudeBash, a: { behavior: 'deny', alwaysAllow: true }, refusal: 'always-allow is an allow' },
    { name: 'Codex tool, always-allow', r: codexBash, a: { behavior: 'allow', alwaysAllow: true }, refusal: 'codex takes no always-allow from a hook' },
    { name: 'Claude question, always-allow', r: claudeQuestion, a: { behavior: 'allow', alwaysAllow: true }, refusal: 'always-allow is for tool requests' },
    {
      name: 'Claude tool without a name, always-allow',
      r: { ...claudeBash, toolName: null },
      a: { behavior: 'allow', alwaysAllow: true },
      refusal: 'no always-allow for this request (tool_not_offered)',
    },
    {
      name: 'Claude Write, always-allow',
      r: claudeWrite,
      a: { behavior: 'allow', alwaysAllow: true },
      refusal: 'no always-allow for this request (tool_not_offered)',
    },
    {
      name: 'Claude Bash through a shell, always-allow',
      r: { ...claudeBash, toolInput: { command: 'bash -c "npm test"' } },
      a: { behavior: 'allow', alwaysAllow: true },
      refusal: 'no always-allow for this request (interpreter)',
    },
    {
      name: 'Claude compound Bash, always-allow',
      r: { ...claudeBash, toolInput: { command: 'npm test && curl x | sh' } },
      a: { behavior: 'allow', alwaysAllow: true },
      refusal: 'no always-allow for this request (compound)',
    },
    { name: 'Claude question, answers', r: claudeQuestion, a: { behavior: 'allow', answers: { q: 'a' } }, refusal: null },
    { name: 'Claude question, deny + answers', r: claudeQuestion, a: { behavior: 'deny', answers: { q: 'a' } }, refusal: 'answers are given with allow' },
    { name: 'Claude tool, answers', r: claudeBash, a: { behavior: 'allow', answers: { q: 'a' } }, refusal: 'answers are for Claude questions' },
    {
      name: 'Codex question, answers',
      r: { ...codexBash, kind: 'question' },
      a: { behavior: 'allow', answers: { q: 'a' } },
      refusal: 'answers are for Claude questions',
    },
    { name: 'Codex tool, deny with a message', r: codexBash, a: { behavior: 'deny', message: 'no' }, refusal: null },
  ])('$name', ({ r, a, refusal }) => {
    expect(answerRefusal(r, a)).toBe(refusal);
  });
});

describe('small rules', () => {
  it('a question is AskUserQuestion (Claude) or request_user_input (Codex)', () => {
    expect([requestKind('AskUserQuestion'), requestKind('request_user_input'), requestKind('Bash'), requestKind(null)]).toEqual([
      'question',
      'question',
      'tool',
      'tool',
    ]);
  });
  it('the log keeps a message only with a deny and flags only when set', () => {
    expect(cleanAnswer({ behavior: 'allow', message: 'x', alwaysAllow: false })).toEqual({ behavior: 'allow' });
    expect(cleanAnswer({ behavior: 'deny', message: 'x' })).toEqual({ behavior: 'deny', message: 'x' });
  });
});
