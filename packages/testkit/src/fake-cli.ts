import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { killTmuxServer } from './system.ts';

/**
 * A "CLI" that writes its arguments, one per line, and never reaches a prompt, in a
 * throw-away folder with a private tmux server name; for checking the command lines the agent builds.
 */
export function fakeCliWorkspace(prefix: string) {
  const root = mkdtempSync(path.join(tmpdir(), `bria-${prefix}-`));
  const bin = path.join(root, 'fake-cli');
  const argvFile = path.join(root, 'argv');
  writeFileSync(bin, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > ${argvFile}\nexec sleep 600\n`);
  chmodSync(bin, 0o755);
  const folder = path.join(root, 'work');
  mkdirSync(folder);
  const socket = `bria-${prefix}-${process.pid}`;
  return {
    root,
    bin,
    argvFile,
    folder,
    socket,
    async dispose(): Promise<void> {
      await killTmuxServer(socket);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
