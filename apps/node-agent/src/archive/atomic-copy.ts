import { createHash } from 'node:crypto';
import { type FileHandle, link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const CHUNK = 1 << 20;

export interface CopyResult {
  sizeBytes: number;
  sha256: string;
}

/**
 * Copies `source` next to `target` under a temporary name, hashing exactly the bytes written,
 * fsyncs it, then moves it into place and fsyncs the directory: a crash leaves the old file or
 * the new one, never half of one. With `noClobber` the last step is a hard link, which fails if
 * `target` appeared meanwhile instead of silently replacing it.
 */
export async function atomicCopy(source: string, target: string, options: { noClobber: boolean }): Promise<CopyResult> {
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
  const hash = createHash('sha256');
  let sizeBytes = 0;
  let input: FileHandle | null = null;
  let output: FileHandle | null = null;
  try {
    input = await open(source, 'r');
    output = await open(temp, 'wx', 0o600);
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await input.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      hash.update(chunk);
      await output.write(chunk);
      sizeBytes += bytesRead;
    }
    await output.sync();
    await output.close();
    output = null;
    if (options.noClobber) {
      await link(temp, target);
      await unlink(temp);
    } else {
      await rename(temp, target);
    }
  } catch (error) {
    await output?.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  } finally {
    await input?.close().catch(() => {});
  }
  await fsyncDir(dirname(target));
  return { sizeBytes, sha256: hash.digest('hex') };
}

export async function hashFile(file: string): Promise<CopyResult> {
  const handle = await open(file, 'r');
  try {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(CHUNK);
    let sizeBytes = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      sizeBytes += bytesRead;
    }
    return { sizeBytes, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
