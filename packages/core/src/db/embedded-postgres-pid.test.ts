import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { procStart, stillRuns } from './embedded-postgres.ts';

// The embedded server's stop waits for its pid to go and then SIGKILLs it; a pid handed to another
// process meanwhile must count as gone (and so is never killed).
describe('the embedded server is known by pid and start', () => {
  it('a process under the recorded pid with another start is not the server', async () => {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      const start = procStart(pid);
      expect(start).toMatch(/^\d+$/);
      expect(stillRuns(pid, start)).toBe(true);
      // What the stop sees when the server's pid now names a newer process.
      expect(stillRuns(pid, String(Number(start) - 500))).toBe(false);
      child.kill('SIGKILL');
      await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode ? resolve() : child.once('exit', () => resolve())));
      expect(stillRuns(pid, start)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
