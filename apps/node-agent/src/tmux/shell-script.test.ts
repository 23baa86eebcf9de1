import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWrapperScript, shellQuote } from './shell-script.ts';

const nasty = `it's "quoted" $HOME \`id\` \\ ; rm -rf / \n second line ü 🙂 $(echo x)`;

describe('shellQuote', () => {
  it('round-trips arbitrary text through a real sh', () => {
    const out = execFileSync('sh', ['-c', `printf '%s' ${shellQuote(nasty)}`]).toString();
    expect(out).toBe(nasty);
  });
  it('refuses NUL bytes', () => {
    expect(() => shellQuote('a\0b')).toThrow();
  });
});

describe('buildWrapperScript', () => {
  it('runs the command with exactly the given env in the given folder and records the exit status', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bria-wrap-'));
    const exitFile = join(dir, 'x.exit');
    const script = join(dir, 'x.sh');
    writeFileSync(
      script,
      buildWrapperScript({
        cwd: dir,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions, not JS templates
        command: ['sh', '-c', 'printf "%s|%s|%s|%s" "$PWD" "$NASTY" "${LEAK-unset}" "${TMUX-none}" > out; exit 3'],
        env: { NASTY: nasty, PATH: process.env.PATH ?? '/usr/bin:/bin', SKIPPED: undefined },
        exitFile,
      }),
    );
    execFileSync('sh', [script], { env: { ...process.env, LEAK: 'leak', TMUX: '/tmp/x,1,0' } });
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe(`${dir}|${nasty}|unset|none`);
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('3');
  });
  it('rejects invalid variable names instead of quoting them', () => {
    expect(() => buildWrapperScript({ cwd: '/', command: ['true'], env: { 'A;B': 'x' }, exitFile: '/tmp/x' })).toThrow();
  });
});
