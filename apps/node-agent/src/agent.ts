import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import type { Command } from '@bria/core/protocol';
import type { AgentConfig } from './env.ts';
import { HubClient } from './hub-client/hub-client.ts';
import { Ledger } from './ledger/ledger.ts';

const run = promisify(execFile);
export const AGENT_VERSION = '0.1.0';

export interface ExecutorProbe { executor: 'claude' | 'codex'; available: boolean; version?: string }

/** Finds which CLIs this computer can run (the user's own installation, as configured). */
export async function probeExecutors(cfg: Pick<AgentConfig, 'claudeBin' | 'codexBin'>): Promise<ExecutorProbe[]> {
  const probe = async (executor: 'claude' | 'codex', bin: string): Promise<ExecutorProbe> => {
    try {
      const { stdout } = await run(bin, ['--version'], { timeout: 15_000 });
      return { executor, available: true, version: stdout.trim().split('\n')[0]?.slice(0, 120) };
    } catch {
      return { executor, available: false };
    }
  };
  return Promise.all([probe('claude', cfg.claudeBin), probe('codex', cfg.codexBin)]);
}

type Log = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** The node agent: one outbound hub connection, a durable ledger and the command handlers. */
export class Agent {
  readonly ledger: Ledger;
  readonly client: HubClient;
  private executors: ExecutorProbe[] = [];

  constructor(readonly cfg: AgentConfig, log: Log) {
    this.ledger = new Ledger(cfg.dir, () => randomUUID());
    this.client = new HubClient({
      url: cfg.hubUrl,
      token: cfg.token,
      ledger: this.ledger,
      log,
      hello: () => ({ agentVersion: AGENT_VERSION, hostname: hostname(), executors: this.executors }),
      onCommand: (cmd) => this.handle(cmd),
    });
  }

  async start(): Promise<void> {
    this.executors = await probeExecutors(this.cfg);
    this.client.start();
  }

  private async handle(cmd: Command): Promise<Record<string, unknown>> {
    switch (cmd.command) {
      case 'probe':
        return { ok: true, executors: await probeExecutors(this.cfg), hostname: hostname() };
      default:
        return { ok: false, error: `The agent (version ${AGENT_VERSION}) does not handle "${cmd.command}" yet.` };
    }
  }

  async stop(): Promise<void> {
    // Deliberately nothing is sent to the CLIs: they keep running in tmux without the agent.
    await this.client.stop();
  }
}
