import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIResponse } from '@playwright/test';
import { expect, test } from './fixtures.ts';

/**
 * Every kind of response the dashboard serves carries the security headers (docs/architecture.md
 * "Security headers"): pages, redirects, route handlers, the tRPC API, 404s and static assets.
 */
const expectHardened = (res: APIResponse, what: string) => {
  const h = res.headers();
  expect(h['x-frame-options'], what).toBe('DENY');
  expect(h['x-content-type-options'], what).toBe('nosniff');
  expect(h['referrer-policy'], what).toBe('no-referrer');
  const csp = Object.fromEntries(
    (h['content-security-policy'] ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v.join(' ')]),
  );
  expect(csp, what).toMatchObject({
    'frame-ancestors': "'none'",
    'object-src': "'none'",
    'base-uri': "'none'",
    'form-action': "'self'",
    'default-src': "'self'",
    'script-src': "'self' 'unsafe-inline'",
    'connect-src': "'self'",
  });
};

test('pages, redirects, route handlers, the API, 404s and static assets all carry the security headers', async ({ request, newLoginLink }) => {
  const signin = await request.get('/signin');
  expect(signin.status()).toBe(200);
  expectHardened(signin, 'sign-in page');
  const assets = [...(await signin.text()).matchAll(/\/_next\/static\/[^"'\s]+\.(?:js|css)/g)].map((m) => m[0]);
  expect(assets.length).toBeGreaterThan(0);
  for (const asset of new Set(assets)) {
    const res = await request.get(asset);
    expect(res.status(), asset).toBe(200);
    expectHardened(res, asset);
  }

  const checks: [string, number][] = [
    ['/', 307],
    ['/api/health', 200],
    ['/api/trpc/nodes.list', 401],
    ['/no-such-page', 404],
    ['/_next/static/no-such-file.js', 404],
    ['/login?token=not-a-token', 303],
  ];
  for (const [url, status] of checks) {
    const res = await request.get(url, { maxRedirects: 0 });
    expect(res.status(), url).toBe(status);
    expectHardened(res, url);
  }
  const post = await request.post('/api/trpc/nodes.addComputer', { data: { name: 'x' }, maxRedirects: 0 });
  expect(post.status()).toBe(401);
  expectHardened(post, 'tRPC mutation');

  // Signed in: the dashboard page itself and an authorised API answer.
  const login = await request.get(await newLoginLink(), { maxRedirects: 0 });
  expect(login.status()).toBe(303);
  expectHardened(login, '/login with a valid token');
  for (const [url, status] of [
    ['/', 200],
    ['/settings', 200],
    ['/api/trpc/nodes.list', 200],
  ] as const) {
    const res = await request.get(url, { maxRedirects: 0 });
    expect(res.status(), url).toBe(status);
    expectHardened(res, `${url} signed in`);
  }
});

test('a page of another origin cannot frame the signed-in dashboard', async ({ browser, state, newLoginLink }) => {
  // Its own context: the refusal to frame is a console message the `page` fixture would count as a violation.
  const context = await browser.newContext({ baseURL: state.baseURL });
  const page = await context.newPage();
  await page.goto(await newLoginLink());
  await expect(page.getByRole('heading', { name: 'Computers' })).toBeVisible();
  // A real page on another port of the same host (same site: the Lax cookie goes along), as a dev
  // server an agent runs would be.
  const html = `<iframe src="${state.baseURL}/" width="800" height="600"></iframe>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const other = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const framed = page.waitForResponse((r) => r.url() === `${state.baseURL}/`);
    await page.goto(other);
    expect((await framed).status()).toBe(200);
    // Chromium replaces a frame refused by frame-ancestors / X-Frame-Options with its error page.
    await expect
      .poll(() =>
        page
          .frames()
          .find((f) => f !== page.mainFrame())
          ?.url(),
      )
      .toBe('chrome-error://chromewebdata/');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame!.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    expect(await frame!.getByRole('heading', { name: 'Computers' }).count()).toBe(0);
  } finally {
    await context.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
