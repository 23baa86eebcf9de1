/** Turns a child's JSON log line (pino or the agent's) into one readable line; other text passes through. */
const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

export function formatLogLine(source: string, line: string): string {
  const tag = `[${source}]`.padEnd(8);
  if (!line.startsWith('{')) return `${tag} ${line}`;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    const level = typeof o.level === 'number' ? (LEVELS[o.level] ?? String(o.level)) : String(o.level ?? 'info');
    const { msg, level: _l, time: _t, pid: _p, hostname: _h, name: _n, ...rest } = o;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    return `${tag} ${level === 'info' ? '' : `${level.toUpperCase()} `}${String(msg ?? '')}${extra}`;
  } catch {
    return `${tag} ${line}`;
  }
}
