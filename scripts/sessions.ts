import { parseArgs } from 'node:util';
import { parseEnv, zServerEnv } from '../packages/core/src/env.ts';
import { openScriptDatabase } from './launcher/script-database.ts';
import { listSessionsForScripts } from '../packages/core/src/services/sessions/index.ts';

/**
 * `npm run sessions [-- --json] [--all]`: the sessions Bria knows, for people (a table) and for
 * scripts (`--json`: one JSON array on stdout, stable field names: state, node, executor, native id,
 * folder, activity, tokens, context %). Open sessions only unless `--all`. Uses DATABASE_URL, or the
 * embedded database (reused if Bria is running, started for the duration of the command otherwise).
 */
const USAGE = 'Usage: npm run sessions [-- --json] [--all]';
let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({ options: { json: { type: 'boolean' }, all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
}
try {
  parsed = parse();
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const env = parseEnv(zServerEnv);
const { db, close } = await openScriptDatabase(env);
let code = 0;
try {
  const items = await listSessionsForScripts({ db }, { includeArchived: parsed.values.all === true });
  if (parsed.values.json) {
    process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
  } else if (items.length === 0) {
    console.log(parsed.values.all ? 'No sessions.' : 'No open sessions (--all lists closed ones too).');
  } else {
    for (const s of items) {
      const ctx = s.context ? (s.context.percent !== null ? `${s.context.percent}% context` : `${s.context.usedTokens} tokens`) : '';
      const act = s.activity
        ? `${s.activity.kind}${s.activity.subject ? ` ${s.activity.subject.split('\n')[0]?.slice(0, 60)}` : ''} (${s.activity.steps} steps)`
        : '';
      console.log([s.state.padEnd(16), s.executor.padEnd(6), s.node.name, s.folder, s.nativeSessionId ?? '—', ctx, act].filter(Boolean).join('  '));
    }
  }
} catch (err) {
  console.error(`bria sessions: ${(err as Error).message}`);
  code = 1;
} finally {
  await close();
}
process.exit(code);
