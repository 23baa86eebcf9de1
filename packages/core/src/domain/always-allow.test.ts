import { describe, expect, it } from 'vitest';
import { type AlwaysAllowRefusal, alwaysAllowOffer } from './always-allow.ts';

const bash = (command: unknown) => alwaysAllowOffer({ executor: 'claude', kind: 'tool', toolName: 'Bash', toolInput: { command } });

describe('always-allow: the rule a button may offer', () => {
  it.each([['npm test'], ['git status'], ['touch ran-always1'], ['ls -la src/lib'], ['cargo build --release'], ['make check-all']])(
    'offers the exact command %j as its own rule',
    (command) => {
      expect(bash(command)).toEqual({ ok: true, offer: { rule: { toolName: 'Bash', ruleContent: command }, label: { kind: 'command', command } } });
    },
  );

  it.each<[string, AlwaysAllowRefusal]>([
    ['bash -c "rm -rf ~"', 'interpreter'],
    ['sh script.sh', 'interpreter'],
    ['zsh', 'interpreter'],
    ['fish -c ls', 'interpreter'],
    ['python3 x.py', 'interpreter'],
    ['python3.12 -m http.server', 'interpreter'],
    ['python x.py', 'interpreter'],
    ['node server.js', 'interpreter'],
    ['deno run x.ts', 'interpreter'],
    ['bun x.ts', 'interpreter'],
    ['ruby x.rb', 'interpreter'],
    ['perl -e 1', 'interpreter'],
    ['sudo rm x', 'interpreter'],
    ['doas ls', 'interpreter'],
    ['env FOO=1 ls', 'interpreter'],
    ['xargs rm', 'interpreter'],
    ['eval ls', 'interpreter'],
    ['exec ls', 'interpreter'],
    ['ssh host ls', 'interpreter'],
    ['nohup ls', 'interpreter'],
    ['timeout 5 ls', 'interpreter'],
    ['npx something', 'interpreter'],
    ['find . -exec rm', 'interpreter'],
    ['npm test && rm -rf x', 'compound'],
    ['false || rm x', 'compound'],
    ['ls; rm x', 'compound'],
    ['ls | sh', 'compound'],
    ['echo $(whoami)', 'compound'],
    ['echo `id`', 'compound'],
    ['ls > out', 'compound'],
    ['cat < in', 'compound'],
    ['sleep 5 &', 'compound'],
    ['ls\nrm x', 'compound'],
    ['cat ~/.ssh/id_ed25519', 'shell_syntax'],
    ['rm *.txt', 'shell_syntax'],
    ['echo $HOME', 'shell_syntax'],
    ['echo "hi"', 'shell_syntax'],
    ["echo 'hi'", 'shell_syntax'],
    ['./run.sh', 'shell_syntax'],
    ['/usr/bin/ls', 'shell_syntax'],
    ['FOO=1 npm test', 'shell_syntax'],
    [' npm test', 'shell_syntax'],
    ['npm  test', 'shell_syntax'],
    [`ls ${'a'.repeat(200)}`, 'too_long'],
    ['', 'no_command'],
  ])('refuses %j (%s)', (command, reason) => {
    expect(bash(command)).toEqual({ ok: false, reason });
  });

  it('refuses what is not a Claude Bash call', () => {
    expect(bash(42)).toEqual({ ok: false, reason: 'no_command' });
    expect(alwaysAllowOffer({ executor: 'codex', kind: 'tool', toolName: 'Bash', toolInput: { command: 'npm test' } })).toEqual({
      ok: false,
      reason: 'not_claude',
    });
    expect(alwaysAllowOffer({ executor: 'claude', kind: 'question', toolName: 'AskUserQuestion', toolInput: {} })).toEqual({ ok: false, reason: 'question' });
    for (const toolName of ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'WebFetch', null])
      expect(alwaysAllowOffer({ executor: 'claude', kind: 'tool', toolName, toolInput: { file_path: '/w/a' } })).toEqual({
        ok: false,
        reason: 'tool_not_offered',
      });
  });
});
