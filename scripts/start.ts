import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { createDb } from '../packages/core/src/db/client.ts';
import { isPortFree, startEmbeddedPostgres, type RunningPostgres } from '../packages/core/src/db/embedded-postgres.ts';
import { migrate } from '../packages/core/src/db/migrate.ts';
import { ConfigError, defaultDataDir, parseEnv, telegramBotConfigured, zServerEnv } from '../packages/core/src/env.ts';
import { safeDbUrl } from '../packages/core/src/log.ts';
import { markLauncherAdded } from '../apps/node-agent/src/cli-env.ts';
import { ensureAgentBundle } from './launcher/agent-bundle.ts';
import { launcherTls, tlsNotice } from './launcher/hub-tls.ts';
import { ensureLocalAgent, revokedLocalAgentNotice } from './launcher/local-agent.ts';
import { formatLogLine } from './launcher/pretty-log.ts';
import { Supervisor } from './launcher/supervisor.ts';
import { firstUseLoginLink } from './launcher/login-link.ts';

/**
 * `npm start`: Bria on this computer with no configuration. Starts (or reuses) the embedded
 * PostgreSQL, applies migrations, then runs the hub, the dashboard, this computer's node agent
 * and, when TELEGRAM_BOT_TOKEN is set, the Telegram bot. Ctrl-C stops all of them and the
 * database; CLI sessions in tmux are left running on purpose and re-attached next time.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg: string) => console.log(formatLogLine('bria', msg));
// Children run as `node --import tsx <file>`: one process each (the tsx wrapper would add a second
// process per child, which also survives a SIGKILL aimed at the wrapper).
const node = process.execPath;
const ts = (file: string) => ['--import', 'tsx', path.join(root, file)];
const nextBin = path.join(root, 'node_modules', '.bin', 'next');

async function main(): Promise<void> {
  const env = parseEnv(zServerEnv);
  const dataDir = path.resolve(env.BRIA_DATA_DIR ?? defaultDataDir());
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // As root the embedded Postgres runs as the `postgres` user, who must be able to pass through
  // the data folder to reach its own subfolder: add only the search bit (no listing, no reading).
  if (!env.DATABASE_URL && process.getuid?.() === 0) chmodSync(dataDir, statSync(dataDir).mode | 0o001);
  say(`Data folder: ${dataDir}`);

  for (const [name, port] of [
    ['dashboard (BRIA_WEB_PORT)', env.BRIA_WEB_PORT],
    ['hub (BRIA_HUB_PORT)', env.BRIA_HUB_PORT],
  ] as const) {
    if (!(await isPortFree(port, env.BRIA_HOST))) throw new Error(`Port ${port} for the ${name} is already in use. Stop what uses it or choose another port.`);
  }

  let pg: RunningPostgres | undefined;
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    say('Starting the embedded PostgreSQL…');
    pg = await startEmbeddedPostgres({ dir: path.join(dataDir, 'postgres'), port: env.BRIA_PG_PORT, log: say });
    databaseUrl = pg.url;
    say(`Embedded PostgreSQL ${pg.startedHere ? 'started' : 'already running'} on 127.0.0.1:${pg.port} (data in ${path.join(dataDir, 'postgres')}).`);
  } else {
    say(`Using the database at ${safeDbUrl(databaseUrl)}.`);
  }

  const supervisor = new Supervisor((line) => console.log(line));
  let shuttingDown = false;
  const shutdown = async (code: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say('Stopping Bria… (CLI sessions in tmux keep running; the next start re-attaches them)');
    await supervisor.stopAll(['bot', 'agent', 'web', 'hub']);
    if (pg?.startedHere) await pg.stop();
    say('Stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    const m = await migrate({ url: databaseUrl, log: say });
    say(m.applied.length ? `Applied ${m.applied.length} migration(s).` : 'Database schema is up to date.');
    const db = createDb(databaseUrl, { max: 2 });
    const local = env.BRIA_LOCAL_AGENT ? await ensureLocalAgent(db, dataDir) : undefined;
    const publicUrl = env.BRIA_PUBLIC_URL ?? `http://${env.BRIA_HOST === '0.0.0.0' ? 'localhost' : env.BRIA_HOST}:${env.BRIA_WEB_PORT}`;
    const agentBundleDir = path.resolve(env.BRIA_AGENT_BUNDLE_DIR ?? path.join(root, 'dist', 'agent'));
    await ensureAgentBundle(root, agentBundleDir, say);
    // The hub port speaks TLS unless BRIA_HUB_TLS=off (launcher/hub-tls.ts): Bria's own CA, or the
    // operator's certificate. The dashboard's health check and this computer's agent trust it (and
    // skip the name check for 127.0.0.1: hub-client.ts, api/health).
    const hubTls = await launcherTls({ ...env, BRIA_HUB_HOST: process.env.BRIA_HUB_HOST }, dataDir);
    say(tlsNotice(hubTls, process.env.BRIA_HUB_HOST || env.BRIA_HOST));
    const tls = hubTls.mode === 'own' ? hubTls.caFile : hubTls.mode === 'cert' ? hubTls.certFile : undefined;
    const botOn = telegramBotConfigured(env);

    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BRIA_DATA_DIR: dataDir,
      BRIA_PUBLIC_URL: publicUrl,
      BRIA_HUB_HEALTH_URL: `${tls ? 'https' : 'http'}://127.0.0.1:${env.BRIA_HUB_PORT}/health`,
      BRIA_AGENT_BUNDLE_DIR: agentBundleDir,
      // What the children run with, said explicitly: the hub listens on BRIA_HOST (or BRIA_HUB_HOST),
      // and the dashboard tells "Add a computer" whether other computers can reach it.
      BRIA_HOST: env.BRIA_HOST,
      // The launcher's record of whether it starts the bot: the dashboard shows bot settings only then.
      BRIA_TELEGRAM_BOT: botOn ? '1' : '0',
      ...(tls ? { BRIA_HUB_CA: tls } : {}),
      ...(hubTls.mode === 'own' ? { BRIA_TLS_CERT: hubTls.certFile, BRIA_TLS_KEY: hubTls.keyFile, BRIA_HUB_OWN_CA: hubTls.caFile } : {}),
    };
    // The bot token goes to the bot only: the hub, the dashboard and the agent never use it, and a
    // secret a process does not hold cannot leak from it (the agent also withholds TELEGRAM_* from
    // the CLIs, apps/node-agent/src/cli-env.ts).
    const { TELEGRAM_BOT_TOKEN: _botToken, ...noBotToken } = childEnv;
    supervisor.start({ name: 'hub', command: node, args: ts('packages/core/src/hub/main.ts'), cwd: root, env: noBotToken });

    await ensureWebBuild();
    supervisor.start({
      name: 'web',
      command: nextBin,
      args: ['start', '-p', String(env.BRIA_WEB_PORT), '-H', env.BRIA_HOST],
      cwd: path.join(root, 'apps/web'),
      env: { ...noBotToken, NODE_ENV: 'production', PORT: String(env.BRIA_WEB_PORT) },
    });

    if (local?.status === 'revoked') {
      say(revokedLocalAgentNotice(local));
    } else if (local) {
      supervisor.start({
        name: 'agent',
        command: node,
        args: ts('apps/node-agent/src/main.ts'),
        cwd: root,
        // The agent withholds from the CLIs every variable this launcher added (cli-env.ts).
        env: markLauncherAdded(process.env, {
          ...noBotToken,
          BRIA_HUB_URL: `${tls ? 'wss' : 'ws'}://127.0.0.1:${env.BRIA_HUB_PORT}/agent`,
          BRIA_AGENT_TOKEN: local.token,
          ...(tls ? { BRIA_AGENT_CA: tls } : {}),
        }),
      });
      if (local.created) say('This computer was enrolled as a node (its agent token is kept in local-agent.json).');
    } else {
      say('The local node agent is off (BRIA_LOCAL_AGENT=0).');
    }

    if (botOn) {
      supervisor.start({ name: 'bot', command: node, args: ts('apps/bot/src/main.ts'), cwd: root, env: childEnv });
    } else {
      say(
        'The Telegram bot is off. To turn it on, set TELEGRAM_BOT_TOKEN (from @BotFather) and TELEGRAM_ALLOWED_USERS (your Telegram user id), then start again.',
      );
    }

    await waitForHealth(`http://127.0.0.1:${env.BRIA_WEB_PORT}/api/health`, 120_000);
    const link = await firstUseLoginLink(db, publicUrl);
    await db.$disconnect();
    say(`Bria is running. Dashboard: ${publicUrl}`);
    if (link) say(`Sign in once with this link (valid 15 minutes, single use): ${link}`);
    // Said again last, where it is not scrolled away by the children's start-up lines.
    if (local?.status === 'revoked') say(revokedLocalAgentNotice(local));
    say('Press Ctrl-C to stop.');
  } catch (err) {
    console.error(formatLogLine('bria', `ERROR ${(err as Error).message}`));
    await shutdown(1);
  }
}

/** Builds the dashboard when there is no production build, or when its sources are newer. */
async function ensureWebBuild(): Promise<void> {
  const web = path.join(root, 'apps/web');
  const buildId = path.join(web, '.next', 'BUILD_ID');
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  const newest = Math.max(newestMtime(path.join(web, 'src')), newestMtime(path.join(root, 'packages/core/src')));
  if (built > newest) return;
  say(built ? 'Dashboard sources changed; rebuilding (about a minute)…' : 'Building the dashboard (first start only, about a minute)…');
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const p = spawn(nextBin, ['build'], { cwd: web, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (c: Buffer) => (tail = (tail + c.toString()).slice(-4000));
    p.stdout.on('data', keep);
    p.stderr.on('data', keep);
    const ticker = setInterval(() => say(`…still building (${Math.round((Date.now() - started) / 1000)} s)`), 15_000);
    p.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`Building the dashboard failed:\n${tail}`));
    });
  });
  say(`Dashboard built in ${Math.round((Date.now() - started) / 1000)} s.`);
}

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || e.parentPath.includes('generated')) continue;
    newest = Math.max(newest, statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`The dashboard did not become healthy at ${url} within ${timeoutMs / 1000} s.`);
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(formatLogLine('bria', `ERROR ${(err as Error).message}`));
  process.exit(1);
});
