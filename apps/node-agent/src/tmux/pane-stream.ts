import { watch } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import type { Tmux } from './tmux.ts';

// Drops CSI/OSC/other escape sequences so a marker drawn between colour codes is still found.
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
const ESC = /\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_=>]/g;

/**
 * For benchmarks: follows a pane's raw output (pipe-pane into `file`) and resolves `expect(marker)`
 * with `now()` at the moment the marker first shows up on screen.
 */
export async function paneStream(tmux: Tmux, paneId: string, file: string, now: () => number = () => performance.now()) {
  await writeFile(file, '');
  await tmux.run(['pipe-pane', '-O', '-t', paneId, `cat >> '${file}'`]);
  const fh = await open(file, 'r');
  let offset = 0;
  let seen = '';
  let want: { marker: string; resolve: (t: number) => void } | null = null;
  let reading = false;
  const pull = async () => {
    if (reading) return;
    reading = true;
    try {
      for (;;) {
        const buf = Buffer.alloc(65536);
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        seen = (seen + buf.subarray(0, bytesRead).toString('utf8')).slice(-200_000);
        if (want && seen.replace(ESC, '').includes(want.marker)) {
          want.resolve(now());
          want = null;
        }
      }
    } finally {
      reading = false;
    }
  };
  const w = watch(file, () => void pull());
  return {
    expect(marker: string): Promise<number> {
      seen = '';
      return new Promise((r) => (want = { marker, resolve: r }));
    },
    async close() {
      w.close();
      await tmux.run(['pipe-pane', '-t', paneId]).catch(() => undefined);
      await fh.close();
    },
  };
}
