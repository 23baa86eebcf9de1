import { expect, test } from './fixtures.ts';

test.describe('without a session', () => {
  test('the API refuses, the dashboard page redirects to the sign-in page, health stays public', async ({ page, request, saveShot }) => {
    const list = await request.get('/api/trpc/nodes.list');
    expect(list.status()).toBe(401);
    expect(JSON.stringify(await list.json())).not.toContain('this computer');
    const add = await request.post('/api/trpc/nodes.addComputer', { data: { name: 'intruder' } });
    expect(add.status()).toBe(401);

    const res = await page.goto('/');
    expect(res?.status()).toBe(200);
    await expect(page).toHaveURL(/\/signin$/);
    await expect(page.getByRole('heading', { name: 'Sign in to Bria' })).toBeVisible();
    await expect(page.getByText('send /login')).toBeVisible();
    await expect(page.getByText('npm start')).toBeVisible();
    await expect(page.getByText('this computer')).toHaveCount(0);
    await saveShot(page, 'signin');

    const health = await request.get('/api/health');
    expect(health.status()).toBe(200);
    const body = (await health.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['db', 'hub', 'nodesOnline', 'nodesTotal', 'ok']);
    expect(body).toMatchObject({ ok: true, db: true, hub: true, nodesOnline: 1 });
  });

  test('the sign-in page speaks Russian to a Russian browser', async ({ browser, state }) => {
    const context = await browser.newContext({ locale: 'ru-RU', baseURL: state.baseURL });
    const page = await context.newPage();
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Вход в Bria' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
    await context.close();
  });
});

test.describe('one-time login links', () => {
  test('a link signs the browser in with an httpOnly, SameSite=Lax cookie; a chat preview fetch does not use it up', async ({
    page,
    context,
    request,
    newLoginLink,
  }) => {
    const link = await newLoginLink();
    const preview = await request.get(link, { headers: { 'user-agent': 'TelegramBot (like TwitterBot)' }, maxRedirects: 0 });
    expect(preview.status()).toBe(200);
    expect(preview.headers()['set-cookie']).toBeUndefined();
    await page.goto(link);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { name: 'Computers' })).toBeVisible();
    const cookie = (await context.cookies()).find((c) => c.name === 'bria_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(29 * 24 * 3600);
  });

  test('a used link is refused with a clear page and no session', async ({ browser, state, newLoginLink, saveShot }) => {
    const link = await newLoginLink();
    const first = await browser.newContext({ baseURL: state.baseURL });
    await (await first.newPage()).goto(link);
    expect((await first.cookies()).some((c) => c.name === 'bria_session')).toBe(true);
    await first.close();

    const second = await browser.newContext({ baseURL: state.baseURL });
    const page = await second.newPage();
    await page.goto(link);
    await expect(page).toHaveURL(/\/signin\?reason=login\.used$/);
    await expect(page.getByTestId('login-refused')).toContainText('This login link has already been used.');
    expect((await second.cookies()).some((c) => c.name === 'bria_session')).toBe(false);
    await saveShot(page, 'login-used');
    await page.goto('/');
    await expect(page).toHaveURL(/\/signin$/);
    await second.close();
  });

  test('an expired or forged link is refused', async ({ page, newLoginLink }) => {
    await page.goto(await newLoginLink({ expired: true }));
    await expect(page.getByTestId('login-refused')).toContainText('This login link has expired.');
    await page.goto('/login?token=forged-token-forged-token-forged');
    await expect(page.getByTestId('login-refused')).toContainText('This login link is not valid.');
    expect((await page.context().cookies()).some((c) => c.name === 'bria_session')).toBe(false);
  });

  test('a mutation with the session cookie but without the CSRF token is refused', async ({ signedInPage }) => {
    // Same browser, same cookie: only the header the page holds is missing.
    const res = await signedInPage.request.post('/api/trpc/nodes.addComputer', { data: { name: 'csrf victim' } });
    expect(res.status()).toBe(403);
    const wrong = await signedInPage.request.post('/api/trpc/nodes.addComputer', { data: { name: 'csrf victim' }, headers: { 'x-bria-csrf': 'guess' } });
    expect(wrong.status()).toBe(403);
    const list = await signedInPage.request.get('/api/trpc/nodes.list');
    expect(list.status()).toBe(200);
    expect(JSON.stringify(await list.json())).not.toContain('csrf victim');
  });

  test('sign out ends the session', async ({ signedInPage: page }) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await page.goto('/');
    await expect(page).toHaveURL(/\/signin$/);
    expect((await page.request.get('/api/trpc/nodes.list')).status()).toBe(401);
  });
});
