// The hooks' health on the Settings pane: another tool takes notch-web's
// hooks out of Claude Code's settings, the pane says so (agent, file, time)
// and Reinstall puts them back in one click, with a backup of the file it
// replaced; then the banner goes.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN } from '../playwright.config';
import { startHost, type Host } from './host';

let host: Host;
let userHome: string; // the HOME whose ~/.claude/settings.json the host watches

test.beforeAll(async () => {
  userHome = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-pw-home-'));
  const env = { ...process.env, HOME: userHome, CLAUDE_CONFIG_DIR: '' };
  execFileSync(BIN, ['hooks', 'install', 'claude-code', '--exe', BIN], { env, stdio: 'ignore' });
  host = await startHost([], undefined, { HOME: userHome, CLAUDE_CONFIG_DIR: '' });
});
test.afterAll(async () => {
  await host.stop();
});

test('hooks taken out: the pane says so, and Reinstall puts them back', async ({ page }) => {
  const settings = path.join(userHome, '.claude', 'settings.json');
  await page.goto(host.url + '/agents-notch/pane');
  await expect(page.locator('#pane')).toBeVisible();
  await expect(page.locator('.hook-banner')).toHaveCount(0);

  // Another tool rewrites the file without notch-web's hooks.
  fs.writeFileSync(settings + '.tmp', JSON.stringify({ model: 'opus' }, null, 2));
  fs.renameSync(settings + '.tmp', settings);

  const banner = page.locator('.hook-banner');
  await expect(banner).toHaveCount(1);
  await expect(banner).toContainText(/Claude Code's hooks were removed from ~\/\.claude\/settings\.json at \d\d:\d\d — reinstall: notch-web hooks install claude-code/);
  await page.screenshot({ path: 'test-results/hookwatch-banner.png', fullPage: false });

  await banner.getByRole('button', { name: "Reinstall claude-code's hooks" }).click();
  await expect(page.locator('.hook-banner')).toHaveCount(0);
  const now = JSON.parse(fs.readFileSync(settings, 'utf8'));
  expect(now.model).toBe('opus');
  expect(JSON.stringify(now.hooks)).toContain(host.url + '/agents-notch/hooks/claude-code');
  const backups = fs.readdirSync(path.dirname(settings)).filter((n) => n.startsWith('settings.json.bak-'));
  expect(backups.map((n) => JSON.parse(fs.readFileSync(path.join(path.dirname(settings), n), 'utf8')))).toContainEqual({ model: 'opus' });
  await page.screenshot({ path: 'test-results/hookwatch-reinstalled.png', fullPage: false });
});
