import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered when a test file first imports this module (vitest isolates modules per file), so it
// runs after that file's tests, also when one failed before its own clean-up. A process exit hook
// would not do: vitest ends its worker processes without running them.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system temp dir for one test file's files, removed after its tests. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
