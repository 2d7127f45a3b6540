// Starting a session from the board (docs/launch.md), at 390 px: this
// computer's browser (its loopback has the launch role) opens New session,
// picks the folder and agent its machine's launch.json allows, types a
// first prompt and starts; the agent (a stand-in that speaks Claude Code's
// hooks, fixtures/launch-agent.cjs) runs in a window of notch-web's own
// tmux session — a private tmux server here (TMUX_TMPDIR) — and its row
// appears. A folder outside the roots is refused in the sheet.
//
// Roles (issue 53), on phones paired over https (a certificate made here,
// the name phone.example): a device whose role is `launch` starts a session
// from its own New session sheet and sees its row; an `answer` device has
// no New session and the route refuses it (403, naming its role); a
// `launch` device lowered to `steer` in the pane while its sheet is open
// is refused at its next Start and loses New session, without a reload.
import { test, expect, chromium, type Browser, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHost, type Host } from './host';
import config, { BIN } from '../playwright.config';
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
let phoneBrowser: Browser;
let phoneBase = '';
const shots = path.join(__dirname, '..', 'test-results', 'launch-roles');

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
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=phone.example', '-addext', 'subjectAltName=DNS:phone.example',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  host = await startHost(['--log-level', 'info', '--allow-host', 'phone.example', '--tls-cert', cert, '--tls-key', key], dsh,
    { HOME: home, TMUX_TMPDIR: dir, TMUX: '', TMUX_PANE: '' });
  phoneBase = `https://phone.example:${new URL(host.url).port}`;
  const launch = config.use!.launchOptions!;
  phoneBrowser = await chromium.launch({ ...launch, args: [...(launch.args ?? []), '--host-resolver-rules=MAP phone.example 127.0.0.1'] });
  fs.mkdirSync(shots, { recursive: true });
});

test.afterAll(async () => {
  if (!hasTmux) return;
  await phoneBrowser?.close();
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

// pair makes a link on this machine for a device of role and opens it in a
// new 390 px browser on phone.example: the paired board.
async function pair(name: string, role: string): Promise<Page> {
  const res = await fetch(host.url + '/agents-notch/devices/add', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, role }),
  });
  expect(res.status).toBe(200);
  const link = (await res.json()).url as string;
  const ctx = await phoneBrowser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true, deviceScaleFactor: 2 });
  const p = await ctx.newPage();
  await p.goto(link);
  await expect(p.locator('#pair-role')).toHaveText(role);
  await p.locator('#pair-go').click();
  await expect(p).toHaveURL(phoneBase + '/agents-notch/');
  await expect(p.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(p.locator('#viewer-role')).toHaveAttribute('data-role', role);
  return p;
}

// startAs posts a start as the page's own script would, and returns the
// status and the host's words.
async function startAs(p: Page, folder: string): Promise<{ status: number; error: string }> {
  return p.evaluate(async (folder) => {
    const res = await fetch('/agents-notch/launch', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ folder, agent: 'claude-code', prompt: 'Not from this device' }),
    });
    return { status: res.status, error: (await res.json()).error };
  }, folder);
}

test('a launch device starts a session from its own sheet and sees its row', async () => {
  test.skip(!hasTmux, 'tmux is not installed');
  test.setTimeout(240_000); // a paired browser, two axe scans, on a loaded machine
  const phone = await pair('phone', 'launch');
  await expect(phone.locator('#new-session')).toBeVisible();
  await phone.locator('#new-session').click();
  const sheet = phone.locator('#launch-sheet');
  await expect(sheet).toBeVisible();
  await expect(phone.locator('#launch-agent option')).toHaveText(['claude-code']);
  await phone.locator('#launch-folder').fill(path.join(root, 'billing-api'));
  await phone.locator('#launch-prompt').fill('Started from the phone');
  await expectAxeClean(phone, 'a launch device\'s New session sheet at 390');
  await phone.screenshot({ path: path.join(shots, 'launch-device-sheet-390.png') });
  await phone.locator('#launch-start').click();
  await expect(sheet).toBeHidden();
  await expect(phone.locator('#board .row', { hasText: 'Started from the phone' })).toBeVisible({ timeout: 20_000 });
  await phone.screenshot({ path: path.join(shots, 'launch-device-row-390.png'), fullPage: true });
  await expectAxeClean(phone, 'a launch device\'s board with its started row at 390');
  // The start is the phone's, by name, in this machine's log.
  expect(host.log.some((l) => l.log_type === 'agents-notch.launch.v1' && l.message === 'started a session' && l.data?.device === 'phone')).toBe(true);
  await phone.context().close();
});

test('an answer device has no New session and the route refuses it', async () => {
  test.skip(!hasTmux, 'tmux is not installed');
  test.setTimeout(240_000);
  const watch = await pair('watch', 'answer');
  await expect(watch.locator('#new-session')).toBeHidden();
  await watch.screenshot({ path: path.join(shots, 'answer-device-board-390.png'), fullPage: true });
  await expectAxeClean(watch, 'an answer device\'s board at 390');
  const refused = await startAs(watch, path.join(root, 'billing-api'));
  expect(refused.status).toBe(403);
  expect(refused.error).toBe("this device's role (answer) does not allow starting sessions");
  const options = await watch.evaluate(async () => (await fetch('/agents-notch/launch/options')).status);
  expect(options).toBe(403);
  await watch.context().close();
});

test('a launch role lowered while the sheet is open takes effect without a reload', async ({ page }) => {
  test.skip(!hasTmux, 'tmux is not installed');
  const tablet = await pair('tablet', 'launch');
  await tablet.evaluate(() => ((window as any).__notReloaded = true));
  await tablet.locator('#new-session').click();
  await expect(tablet.locator('#launch-sheet')).toBeVisible();
  await tablet.locator('#launch-folder').fill(path.join(root, 'billing-api'));
  await tablet.locator('#launch-prompt').fill('Started after the role was lowered');

  // The desk lowers it to steer in the pane.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(host.url + '/agents-notch/pane');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const menu = page.locator('#device-list .device[data-name="tablet"]').getByRole('combobox', { name: 'Role of tablet' });
  await expect(menu).toHaveValue('launch');
  await menu.selectOption('steer');
  await expect(page.locator('#device-list .device[data-name="tablet"]').getByRole('combobox', { name: 'Role of tablet' })).toHaveValue('steer');

  // The open page follows: its role mark, then the sheet's Start refused.
  await expect(tablet.locator('#viewer-role')).toHaveAttribute('data-role', 'steer');
  await tablet.locator('#launch-start').click();
  await expect(tablet.locator('#launch-status')).toHaveText("this device's role (steer) does not allow starting sessions");
  await tablet.screenshot({ path: path.join(shots, 'lowered-sheet-390.png') });
  await tablet.keyboard.press('Escape');
  await expect(tablet.locator('#launch-sheet')).toBeHidden();
  await expect(tablet.locator('#new-session')).toBeHidden();
  await expect(tablet.locator('#board .row', { hasText: 'Started after the role was lowered' })).toHaveCount(0);
  expect(await tablet.evaluate(() => (window as any).__notReloaded)).toBe(true);
  await expectAxeClean(tablet, 'a steer device\'s board at 390');
  await tablet.screenshot({ path: path.join(shots, 'lowered-board-390.png'), fullPage: true });
  await tablet.context().close();
});
