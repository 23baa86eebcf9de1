import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * One agent per agent folder: two would share one ledger and take the node's connection from each
 * other. Most likely after `install-service` while the agent started by hand still runs; the
 * service's agent then stops with this message and its manager starts it again later (systemd
 * `Restart=on-failure`, launchd `KeepAlive`), so it takes over once the other one is stopped.
 * `<dir>/agent.pid` holds the running agent's pid; a file whose process is gone is taken over.
 */
export function lockAgentDir(dir: string, pid = process.pid): { release: () => void } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'agent.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return {
        release: () => {
          try {
            if (readFileSync(file, 'utf8').trim() === String(pid)) rmSync(file, { force: true });
          } catch {}
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== pid && alive(holder)) {
      throw new Error(
        `Another agent (pid ${holder}) runs with the folder ${dir}. Stop it first (Ctrl-C where it runs, or: systemctl --user stop bria-agent / launchctl bootout gui/$(id -u)/dev.bria.agent).`,
      );
    }
    rmSync(file, { force: true });
  }
  throw new Error(`Cannot lock the agent folder ${dir}.`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
