// Run by web-logs.test.ts as its own process, so the dashboard's logger writes to this process's
// stdout exactly as under `next start`: redeems the login link in argv twice (once ok, once refused).
const token = process.argv[2] ?? '';
const { GET } = (await import('../../apps/web/src/app/login/route.ts')) as { GET: (r: Request) => Promise<Response> };
const url = `http://127.0.0.1:3000/login?token=${encodeURIComponent(token)}`;
const first = await GET(new Request(url, { headers: { 'user-agent': 'Mozilla/5.0' } }));
const second = await GET(new Request(url, { headers: { 'user-agent': 'Mozilla/5.0' } }));
process.stderr.write(`${JSON.stringify({ first: first.status, firstCookie: first.headers.get('set-cookie'), second: second.headers.get('location') })}\n`);
// The pino destination flushes on exit; the pool would keep the process alive.
setTimeout(() => process.exit(0), 200);

export {};
