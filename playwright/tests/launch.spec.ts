// Starting a session from the board (docs/launch.md), at 390 px: this
// computer's browser (its loopback has the launch role) opens New session,
// picks the folder and agent its machine's launch.json allows, types a
// first prompt and starts; the agent (a stand-in that speaks Claude Code's
// hooks, fixtures/launch-agent.cjs) runs in a window of notch-web's own
// tmux session — a private tmux server here (TMUX_TMPDIR) — and its row
// appears. A folder outside the roots is refused in the sheet.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHost, type Host } from './host';
import { BIN } from '../playwright.config';
import { expectAxeClean, openBoard } from './ui';

test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 390, height: 844 } });

let hasTmux = true;
try {
  execFileSync('tmux', ['-V']);
} catch {
  hasTmux = false;
}

let host: Host;
let dir = '';
let root = '';

test.beforeAll(async () => {
  if (!hasTmux) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launch-'));
  const home = path.join(dir, 'home');
  const dsh = path.join(dir, 'dsh');
  root = path.join(dir, 'src');
  fs.mkdirSync(path.join(root, 'billing-api'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home, TMUX: '', TMUX_PANE: '' };
  execFileSync(BIN, ['hooks', 'install', 'claude-code', '--url', 'http://127.0.0.1:1'], { env });
  const agent = path.join(__dirname, 'fixtures', 'launch-agent.cjs');
  execFileSync(BIN, ['launch', '--dsh-home', dsh, 'allow-folder', root], { env });
  execFileSync(BIN, ['launch', '--dsh-home', dsh, 'allow-agent', 'claude-code', process.execPath, agent, dsh], { env });
  host = await startHost([], dsh, { HOME: home, TMUX_TMPDIR: dir, TMUX: '', TMUX_PANE: '' });
});

test.afterAll(async () => {
  if (!hasTmux) return;
  await host?.stop();
  try {
    execFileSync('tmux', ['-S', path.join(dir, `tmux-${process.getuid!()}`, 'default'), 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no server was started
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a session started from the board shows its row', async ({ page }) => {
  test.skip(!hasTmux, 'tmux is not installed');
  await openBoard(page, host.url);
  await page.locator('#new-session').click();
  const sheet = page.locator('#launch-sheet');
  await expect(sheet).toBeVisible();
  await expect(page.locator('#launch-agent option')).toHaveText(['claude-code']);
  await expect(page.locator('#launch-folder')).toHaveValue(root);
  await expect(page.locator('#launch-start')).toBeEnabled();

  // A folder outside the roots: the machine says no, in the sheet.
  await page.locator('#launch-folder').fill(dir);
  await page.locator('#launch-start').click();
  await expect(page.locator('#launch-status')).toContainText('not inside a root');

  await page.locator('#launch-folder').fill(path.join(root, 'billing-api'));
  await page.locator('#launch-prompt').fill('Run the migration tests');
  await expectAxeClean(page, 'the New session sheet');
  await page.screenshot({ path: test.info().outputPath('launch-sheet-390.png') });
  await page.locator('#launch-start').click();
  await expect(sheet).toBeHidden();
  const started = page.locator('#board .row', { hasText: 'Run the migration tests' });
  await expect(started).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: test.info().outputPath('launch-row-390.png') });
  await expectAxeClean(page, 'the board with the started row');
});
