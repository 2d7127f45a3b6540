// Go to terminal (issue 22): a session whose hook said it runs in tmux on
// this host gets an action that switches tmux to its pane; one in WezTerm
// gets the command that gets there, copied. A real tmux server of this
// spec's own (a private socket, "terminal-" named, killed at the end).
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHost, type Host } from './host';
import { expectAxeClean, openBoard, row } from './ui';

// This machine is shared; axe takes its time.
test.describe.configure({ timeout: 120_000 });

let host: Host;
let dir = '';
let sock = '';
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-S', sock, ...args], { env: { ...process.env, TMUX: '', TMUX_PANE: '' } })
    .toString()
    .trim();
let hasTmux = true;
try {
  execFileSync('tmux', ['-V']);
} catch {
  hasTmux = false;
}

// hook starts a session as "notch-web hook claude-code" relays its
// SessionStart (where the agent runs in the Notch-Where header), then a
// prompt, so the row is working (a settled row folds into its group).
async function hook(id: string, where: string): Promise<void> {
  for (const [event, hdr] of [
    ['SessionStart', { 'Notch-Where': where }],
    ['UserPromptSubmit', {}],
  ] as const) {
    const res = await fetch(`${host.url}/agents-notch/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hdr },
      body: JSON.stringify({ session_id: id, cwd: '/src/atlas', hook_event_name: event, source: 'startup', prompt: 'go' }),
    });
    expect(res.status).toBe(200);
  }
}

test.beforeAll(async () => {
  host = await startHost();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'terminal-'));
  sock = path.join(dir, 'terminal-pw');
});
test.afterAll(async () => {
  await host?.stop();
  try {
    execFileSync('tmux', ['-S', sock, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no server was started
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a tmux row: Go to terminal from the keyboard makes its pane current', async ({ page }) => {
  test.skip(!hasTmux, 'tmux is not installed');
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'terminal-pw', '-x', '80', '-y', '24');
  const pane = tmux('display-message', '-p', '-t', 'terminal-pw', '#{pane_id}');
  tmux('new-window', '-t', 'terminal-pw');
  expect(tmux('display-message', '-p', '-t', 'terminal-pw', '#{pane_id}')).not.toBe(pane);
  await hook('t-tmux', new URLSearchParams({ 'tmux-pane': pane, 'tmux-socket': sock }).toString());

  await openBoard(page, host.url);
  const go = row(page, 't-tmux').locator('.act.term');
  await expect(go).toHaveAttribute('aria-label', /^Go to terminal: /);
  await go.focus();
  await page.keyboard.press('Enter');
  // No client is attached to this private server: the pane is made
  // current, and the page says so and copies the command that attaches.
  await expect(page.locator('#toast')).toContainText('No tmux client is attached');
  await expect.poll(() => tmux('display-message', '-p', '-t', 'terminal-pw', '#{pane_id}')).toBe(pane);
  await expectAxeClean(page, 'a board with a Go to terminal action');
});

test('a WezTerm row: the action copies the command that gets there, and says so', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.url });
  await hook('t-wez', 'term=WezTerm&wezterm-pane=7');
  await openBoard(page, host.url);
  const copy = row(page, 't-wez').locator('.act.term');
  await expect(copy).toHaveAttribute('aria-label', /^Copy the command to the terminal of /);
  await copy.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#toast')).toContainText('wezterm cli activate-pane --pane-id 7');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('wezterm cli activate-pane --pane-id 7');
});

test('a hostile terminal header gives no action, and the row is there all the same', async ({ page }) => {
  await hook('t-evil', 'tmux-pane=%253%3Bkill-server&tmux-socket=%2Ftmp%2Fx');
  await openBoard(page, host.url);
  await expect(row(page, 't-evil')).toBeVisible();
  await expect(row(page, 't-evil').locator('.act.term')).toHaveCount(0);
});
