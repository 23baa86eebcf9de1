// A second computer for the Telegram tests: its own enrolled node, its own CLI home, tmux server and
// agent directory, and a real node agent process connected to the scenario system's hub. The CLIs
// it runs talk to the same mock model servers, so its turns are visible in `sys.turns`.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNodeWithToken } from '../../packages/core/src/db/repos/nodes.ts';
import { claudeBin, codexBin, createCliHome } from '../../packages/testkit/src/cli-homes.ts';
import { type Executor, killTmuxServer, type System, waitUntil } from '../../packages/testkit/src/system.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function enrolSecondNode(sys: System, o: { name: string; executors: Executor[] }) {
  const { nodeId, token } = await createNodeWithToken(sys.db, { name: o.name });
  await sys.db.node.update({ where: { id: nodeId }, data: { enabledExecutors: o.executors } });
  const root = path.join(sys.root, o.name);
  const work = path.join(root, 'work');
  mkdirSync(work, { recursive: true });
  const { env: cliEnv } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: sys.mocks.claude.url, openaiUrl: sys.mocks.codex.url });
  const tmuxSocket = `bria-sys2-${randomBytes(4).toString('hex')}`;
  let agent: ChildProcess | null = null;
  const online = async () => (await sys.db.node.findUniqueOrThrow({ where: { id: nodeId } })).online;

  const node = {
    nodeId,
    /** A working folder on this computer that its CLIs trust. */
    folder(name: string): string {
      const dir = path.join(work, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    /** Runs a CLI on this computer by hand (not through Bria), e.g. `claude -p …`; resolves with its exit code. */
    runByHand(bin: string, args: string[], cwd: string): Promise<number> {
      return new Promise((resolve) => {
        const child = execFile(bin, args, { cwd, env: cliEnv, timeout: 60_000, killSignal: 'SIGKILL' }, (err) =>
          resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0),
        );
        child.stdin?.end();
      });
    },
    /** Starts its agent (once: a retried test must not start a second agent with the same token). */
    async startAgent(): Promise<void> {
      if (agent && agent.exitCode === null) return;
      const out = createWriteStream(path.join(root, 'agent.log'), { flags: 'a' });
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'apps/node-agent/src/main.ts', '--hub', `ws://127.0.0.1:${sys.hub.port}/agent`, '--dir', path.join(root, 'agent')],
        {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...cliEnv, BRIA_AGENT_TOKEN: token, BRIA_CLAUDE_BIN: claudeBin, BRIA_CODEX_BIN: codexBin, BRIA_TMUX_SOCKET: tmuxSocket, LOG_LEVEL: 'info' },
        },
      );
      child.stdout?.pipe(out);
      child.stderr?.pipe(out);
      agent = child;
      await waitUntil(`${o.name} online`, online, 30_000);
    },
    /** SIGKILL of the agent alone: its CLIs keep running in their tmux panes. */
    async killAgent(): Promise<void> {
      const a = agent;
      if (!a || a.exitCode !== null) return;
      const gone = new Promise((r) => a.once('exit', r));
      a.kill('SIGKILL');
      await gone;
      agent = null;
    },
    /** SIGSTOP / SIGCONT of the agent process: it holds its socket but acts on nothing meanwhile. */
    pauseAgent: () => agent?.kill('SIGSTOP'),
    resumeAgent: () => agent?.kill('SIGCONT'),
    async dispose(): Promise<void> {
      const a = agent;
      if (a && a.exitCode === null) {
        const gone = new Promise((r) => a.once('exit', r));
        a.kill('SIGKILL');
        await gone;
      }
      agent = null;
      await killTmuxServer(tmuxSocket);
    },
  };
  return node;
}
export type SecondNode = Awaited<ReturnType<typeof enrolSecondNode>>;
