import { expect, test } from './fixtures.ts';

test('the language switch shows Russian labels, is kept across reloads, and "browser language" goes back', async ({ signedInPage: page, saveShot }) => {
  // The browser says English (playwright.config locale en-US).
  await expect(page.getByRole('link', { name: 'Home', exact: true })).toBeVisible();
  await page.getByTestId('language-switch').selectOption('ru');
  await expect(page.getByRole('link', { name: 'Главная', exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Компьютеры' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Настройки', exact: true })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  const card = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
  await expect(card.getByTestId('node-status')).toHaveText('В сети');
  await saveShot(page, 'dashboard-ru');

  // Kept: a new page load (and other pages) render in Russian on the server already.
  await page.goto('/settings');
  await expect(page.getByRole('heading', { name: 'Настройки' })).toBeVisible();
  expect((await page.context().cookies()).find((c) => c.name === 'bria_locale')?.value).toBe('ru');

  await page.getByTestId('language-switch').selectOption('');
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  expect((await page.context().cookies()).find((c) => c.name === 'bria_locale')).toBeUndefined();
});
