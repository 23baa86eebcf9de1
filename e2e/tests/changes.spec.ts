import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { expect, test } from './fixtures.ts';

// One session in its own worktree, from the new-session form to Finish; the steps share it.
test.describe.configure({ mode: 'serial' });

let db: Db;
let sessionId = '';
let repo = '';
let bare = '';
let worktree = '';
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).trim();
test.afterAll(async () => {
  await db?.$disconnect();
});

test('new session in its own worktree: branch named from the title, the CLI starts there', async ({ signedInPage: page, state, saveShot }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  db ??= createDb(state.databaseUrl, { max: 2 });
  const root = path.join(state.workDir, `changes-${Date.now()}`);
  repo = path.join(root, 'app');
  bare = path.join(root, 'app.git');
  mkdirSync(repo, { recursive: true });
  git(root, 'init', '-q', '--bare', bare);
  git(repo, 'init', '-q', '-b', 'main');
  // The user's git identity, in the repository's own configuration (the CLI's HOME is a throw-away one).
  git(repo, 'config', 'user.name', 'Ada Lovelace');
  git(repo, 'config', 'user.email', 'ada@example.com');
  writeFileSync(path.join(repo, 'greeting.txt'), 'hello\nworld\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'start');
  git(repo, 'remote', 'add', 'origin', bare);
  git(repo, 'push', '-q', '-u', 'origin', 'main');

  const node = await db.node.findFirstOrThrow({ where: { name: 'this computer' } });
  await page.goto(`/nodes/${node.id}/new`);
  await page.getByRole('radio', { name: 'Claude Code' }).check();
  await page.getByLabel('Working folder (absolute path)').fill(repo);
  await page.getByTestId('new-worktree').check();
  await page.getByTestId('new-title').fill('Fix the greeting');
  await expect(page.getByTestId('new-branch')).toHaveValue('bria/fix-the-greeting');
  await saveShot(page, 'new-session-worktree');
  await page.getByRole('button', { name: 'Start a new session' }).click();
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  sessionId = page.url().split('/').at(-1) ?? '';
  worktree = path.join(root, 'app.bria-worktrees', 'bria', 'fix-the-greeting');
  const row = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
  expect(row).toMatchObject({ folder: worktree, worktreeBranch: 'bria/fix-the-greeting', gitBaseBranch: 'main', title: 'Fix the greeting' });
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
  expect(git(worktree, 'symbolic-ref', '--short', 'HEAD')).toBe('bria/fix-the-greeting');
});

test('the changes view at 1440 px: files with +/−, the diff, untracked files; commit all', async ({ signedInPage: page, saveShot }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  // What an edit tool call writes.
  writeFileSync(path.join(worktree, 'greeting.txt'), 'hello\nthere\n');
  writeFileSync(path.join(worktree, 'notes.md'), '# notes\n');
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId('session-branch')).toHaveText('branch bria/fix-the-greeting');
  await page.getByTestId('changes').locator(':scope > summary').click();
  await expect(page.getByTestId('worktree-line')).toContainText('bria/fix-the-greeting');
  const file = page.locator('[data-testid="changes-file"][data-path="greeting.txt"]');
  await expect(file.getByTestId('numstat')).toHaveText('+1 −1');
  await file.locator('summary').click();
  await expect(file.getByTestId('diff')).toContainText('-world');
  await expect(file.getByTestId('diff')).toContainText('+there');
  await expect(page.getByTestId('changes-untracked')).toHaveText('notes.md');
  await saveShot(page, 'changes');
  await page.getByTestId('commit-message').fill('Greet there');
  await page.getByTestId('commit-button').click();
  await expect(page.getByTestId('git-outcome')).toContainText('Committed:');
  await expect(page.getByTestId('git-outcome')).toContainText('Greet there');
  expect(git(worktree, 'log', '-1', '--format=%an|%s')).toBe('Ada Lovelace|Greet there');
  expect(git(worktree, 'status', '--porcelain')).toBe('');
});

test('at 390 px: commit a chosen file, push to the remote; finish refused while the CLI runs in the worktree', async ({ signedInPage: page, saveShot }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 390, height: 844 });
  // A TypeScript file committed on the branch, then changed: its diff (new since the branch point) is coloured by language.
  writeFileSync(path.join(worktree, 'app.ts'), 'export const answer = 41;\n');
  git(worktree, 'add', 'app.ts');
  git(worktree, 'commit', '-q', '-m', 'Add app.ts');
  writeFileSync(path.join(worktree, 'app.ts'), `export const answer = 42; // ${'a long comment '.repeat(20)}\n`);
  writeFileSync(path.join(worktree, 'a.txt'), 'a\n');
  writeFileSync(path.join(worktree, 'b.txt'), 'b\n');
  await page.goto(`/sessions/${sessionId}`);
  await page.getByTestId('changes').locator(':scope > summary').click();
  await expect(page.getByTestId('changes-untracked')).toContainText('a.txt');
  const ts = page.locator('[data-testid="changes-file"][data-path="app.ts"]');
  await ts.locator('summary').click();
  await expect(ts.getByTestId('diff')).toHaveAttribute('data-lang', 'js');
  await expect(ts.locator('.diff-add .tok-kw').first()).toHaveText('export');
  await expect(ts.locator('.diff-add .tok-num')).toHaveText('42');
  await expect(ts.locator('.diff-add .tok-com')).toContainText('// a long comment');
  // Against the branch point app.ts is new: its header lines stay uncoloured.
  await expect(ts.locator('.diff-meta .tok')).toHaveCount(0);
  // The long line scrolls inside the diff; nothing on the page is wider than the phone.
  expect(await ts.getByTestId('diff').evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await saveShot(page, 'changes-coloured-phone');
  // Draft message: the session's CLI answers in a turn of its own, and the answer lands in the field.
  await page.getByTestId('draft-button').click();
  await expect(page.getByTestId('commit-message')).toHaveValue(/^MOCK-REPLY-\d+: you said "Write a git commit message/, { timeout: 90_000 });
  await expect(page.getByTestId('draft-done')).toBeVisible();
  const drafting = await db.message.findFirstOrThrow({ where: { sessionId, text: { startsWith: 'Write a git commit message' } } });
  expect(drafting.status).toBe('completed');
  await expect(page.getByTestId('commit-message')).toHaveValue((drafting.finalText ?? '').trim());
  await page.getByTestId('stage-chosen').check();
  await page.getByRole('checkbox', { name: 'Commit a.txt' }).check();
  await page.getByTestId('commit-message').fill('Add a');
  await page.getByTestId('commit-button').click();
  await expect(page.getByTestId('git-outcome')).toContainText('Add a');
  expect(git(worktree, 'status', '--porcelain')).toBe('M app.ts\n?? b.txt');
  await page.getByTestId('push-button').click();
  await expect(page.getByTestId('git-outcome')).toContainText('Pushed bria/fix-the-greeting to origin.', { timeout: 30_000 });
  expect(git(repo, `--git-dir=${bare}`, 'log', '-1', '--format=%s', 'bria/fix-the-greeting')).toBe('Add a');
  // Finish may not remove the worktree while the CLI runs in it (Keep is preselected while it is open).
  await expect(page.getByTestId('worktree-keep')).toBeChecked();
  await page.getByTestId('worktree-remove').check();
  await page.getByTestId('finish-button').click();
  await expect(page.getByTestId('git-refusal')).toHaveAttribute('data-code', 'session_open');
  await saveShot(page, 'changes-phone');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('closed: Finish asks a second time for uncommitted work, then merges and removes the worktree', async ({ signedInPage: page, saveShot }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/sessions/${sessionId}`);
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  // A worktree session's Close asks what becomes of the worktree; Keep is the default.
  await expect(page.getByTestId('close-dialog')).toContainText(worktree);
  await expect(page.getByTestId('close-keep')).toBeChecked();
  await saveShot(page, 'close-worktree-phone');
  await page.getByTestId('close-confirm').click();
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Archived', { timeout: 90_000 });
  expect(existsSync(worktree)).toBe(true);
  await page.getByTestId('changes').locator(':scope > summary').click();
  await expect(page.getByTestId('worktree-remove')).toBeChecked();
  await page.getByTestId('finish-button').click();
  await expect(page.getByTestId('uncommitted')).toContainText('b.txt');
  expect(existsSync(path.join(worktree, 'b.txt'))).toBe(true);
  await saveShot(page, 'finish-uncommitted-phone');
  const tip = git(worktree, 'rev-parse', 'HEAD');
  await page.getByTestId('finish-force').click();
  await expect(page.getByTestId('git-outcome')).toContainText('The worktree was removed.', { timeout: 30_000 });
  expect(git(repo, 'rev-parse', 'main')).toBe(tip);
  expect(existsSync(worktree)).toBe(false);
  await expect(page.getByTestId('worktree-line')).toContainText('The worktree was removed');
});

test('Close → Remove worktree: uncommitted work is listed, removed after the second press; the branch stays', async ({ signedInPage: page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const node = await db.node.findFirstOrThrow({ where: { name: 'this computer' } });
  await page.goto(`/nodes/${node.id}/new`);
  await page.getByRole('radio', { name: 'Claude Code' }).check();
  await page.getByLabel('Working folder (absolute path)').fill(repo);
  await page.getByTestId('new-worktree').check();
  const title = `Farewell ${Date.now().toString(36)}`;
  await page.getByTestId('new-title').fill(title);
  const branch = await page.getByTestId('new-branch').inputValue();
  await page.getByRole('button', { name: 'Start a new session' }).click();
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  const id = page.url().split('/').at(-1) ?? '';
  const folder = (await db.session.findUniqueOrThrow({ where: { id } })).folder;
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
  writeFileSync(path.join(folder, 'farewell.md'), 'bye\n');
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByTestId('close-remove').check();
  await page.getByTestId('close-confirm').click();
  await expect(page.getByTestId('close-uncommitted')).toContainText('farewell.md', { timeout: 90_000 });
  expect((await db.session.findUniqueOrThrow({ where: { id } })).state).toBe('Archived');
  expect(existsSync(path.join(folder, 'farewell.md'))).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByTestId('close-force').click();
  await expect(page.getByTestId('close-removed')).toBeVisible({ timeout: 30_000 });
  expect(existsSync(folder)).toBe(false);
  expect(git(repo, 'branch', '--list', branch)).toContain(branch);
});
