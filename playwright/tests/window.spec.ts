// The desktop window's lifecycle as the pane shows it: a real child process
// (the supervisor tests' fake window, built here) running, exiting and
// waiting, quitting from the tray, and Start now ending the wait or the hold.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHost, type Host } from './host';

const repo = path.join(__dirname, '..', '..');

test.describe('the desktop window in the pane', () => {
  let host: Host;
  let dir: string; // beside state.json: the fake window's steering files

  test.beforeAll(async () => {
    const bin = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-fake-')), 'fakewindow');
    execFileSync('go', ['build', '-o', bin, './host/window/testdata/fakewindow'], { cwd: repo, stdio: 'inherit' });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-pw-'));
    dir = path.join(home, 'state', 'agents-notch');
    fs.mkdirSync(dir, { recursive: true });
    plan({ mode: 'run' });
    host = await startHost(['--window', bin], home);
  });
  test.afterAll(async () => {
    await host.stop();
  });

  /** plan says what the next window to start does. */
  function plan(p: object) {
    fs.writeFileSync(path.join(dir, 'fakewindow.json'), JSON.stringify(p));
  }
  /** stop makes the running window exit (code 0) on its own. */
  function stop() {
    fs.writeFileSync(path.join(dir, 'fakewindow.stop'), '');
  }
  async function health(): Promise<any> {
    return (await (await fetch(host.url + '/healthz')).json()).window;
  }

  test('running, exited and waiting, quit from the tray; Start now ends the wait and the hold', async ({ page }) => {
    await page.goto(host.url + '/agents-notch/pane');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    const state = page.locator('#window-state');
    const words = page.locator('#window-words');
    const start = page.locator('#window-start');
    // Start now spawns at most one window per 5 s (a 429 within that), so
    // it is pressed until the state it leads to shows, never twice once it
    // does.
    const startUntil = async (want: string) => {
      await expect(async () => {
        if ((await state.getAttribute('data-state')) !== want) await start.click({ timeout: 1000 });
        await expect(state).toHaveAttribute('data-state', want, { timeout: 2000 });
      }).toPass({ timeout: 30_000 });
    };

    await expect(state).toHaveAttribute('data-state', 'running');
    await expect(words).toHaveText(/^running since \d\d:\d\d$/);
    await expect(start).toBeDisabled();
    const first = await health();
    expect(first.pid).toBeGreaterThan(0);

    // It exits on its own: waiting, counted down on the page's clock.
    stop();
    await expect(state).toHaveAttribute('data-state', 'waiting');
    await expect(words).toHaveText(/^exited; restarting in \d+ s$/);
    const before = await words.textContent();
    await expect(words).not.toHaveText(before!); // the countdown ticks
    await expect(start).toBeEnabled();

    // Start now ends the wait at once.
    await start.click();
    await expect(state).toHaveAttribute('data-state', 'running');
    const second = await health();
    expect(second.pid).not.toBe(first.pid);
    expect(second.spawns).toBe(2);

    // The human quits from the tray: the window writes quit.json and exits.
    plan({ mode: 'quit', wallMs: Date.now() });
    stop();
    await expect(state).toHaveAttribute('data-state', 'waiting');
    await startUntil('quit'); // the next window is the one that quits
    await expect(words).toHaveText(/^quit from the tray; back at \d\d:\d\d$/);
    await page.locator('#g-window').screenshot({ path: path.join(__dirname, '..', 'test-results', 'pane-window-quit.png') });
    expect((await new AxeBuilder({ page }).include('#g-window').analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    const held = await health();
    expect(held.next - held.since).toBe(60 * 60 * 1000);

    // Start now ends the hour's hold.
    plan({ mode: 'run' });
    await startUntil('running');
    await expect(words).toHaveText(/^running since \d\d:\d\d$/);
  });
});
