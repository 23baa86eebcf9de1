import { Writable } from 'node:stream';
import pg from 'pg';
import { createLogger, type Logger } from '@bria/core/log';

/**
 * Shared by the security suite. The "nothing happened" half of every refusal is proved by
 * re-reading the whole database: a fingerprint of every table's rows, taken before and after.
 */
export async function dbFingerprint(url: string, ignore: string[] = []): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string }>(
      "select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1",
    );
    const out: Record<string, string> = {};
    for (const { t } of rows) {
      if (ignore.includes(t)) continue;
      const r = await client.query<{ n: string; h: string | null }>(
        `select count(*)::text as n, md5(string_agg(x::text, '|' order by x::text)) as h from "${t.replaceAll('"', '""')}" x`,
      );
      out[t] = `${r.rows[0]?.n}:${r.rows[0]?.h ?? ''}`;
    }
    return out;
  } finally {
    await client.end();
  }
}

export async function until<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A logger at info level whose every line is kept, to be scanned for what must never appear. */
export function capturedLogger(name: string, level = 'info'): { log: Logger; text: () => string } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { log: createLogger({ name, level, destination }), text: () => chunks.join('') };
}

/** Every secret or text the logs must not contain, with the name reported when one leaks. */
export function leaks(logText: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, v]) => v.length > 0 && logText.includes(v))
    .map(([k]) => k);
}
