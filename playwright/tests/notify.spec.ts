// Tell me when I'm needed: Web Notifications while the board's page is
// hidden (per alerts, on the rising edge only, at most one per 5 s, none for
// rows present at load), the bell that asks for permission only when clicked, and the
// page's title and icon. Notifications are captured by wrapping
// window.Notification (the real one still runs), and a hidden page is
// simulated by overriding document.visibilityState.
import { test, expect, type Page } from '@playwright/test';
import { sendEvents, startHost, type Host } from './host';
import { ev, foldBoard, row, setSettings, uid } from './ui';

type Note = { title: string; body: string; tag: string };

// recordNotifications runs before the page's scripts; the page starts with
// the visibility given (a board opened in a background tab starts hidden).
function recordNotifications(initial: string) {
  const w = window as any;
  w.__notes = [];
  w.__asked = 0;
  const Real = window.Notification;
  if (Real) {
    class Recorded extends Real {
      constructor(title: string, opts?: NotificationOptions) {
        super(title, opts);
        w.__notes.push({ title, body: opts?.body ?? '', tag: opts?.tag ?? '', n: this });
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
    Object.defineProperty(Recorded, 'requestPermission', {
      value: (...args: any[]) => {
        w.__asked += 1;
        return (Real.requestPermission as any)(...args);
      },
    });
    w.Notification = Recorded;
  }
  let vis = initial;
  Object.defineProperty(Document.prototype, 'visibilityState', { get: () => vis, configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => vis === 'hidden', configurable: true });
  w.__setVisibility = (v: string) => {
    vis = v;
    document.dispatchEvent(new Event('visibilitychange'));
  };
}

const notes = (page: Page): Promise<Note[]> =>
  page.evaluate(() => (window as any).__notes.map(({ title, body, tag }: Note) => ({ title, body, tag })));
const setVisibility = (page: Page, v: 'visible' | 'hidden') => page.evaluate((x) => (window as any).__setVisibility(x), v);

async function loadBoard(page: Page, host: Host, visibility: 'visible' | 'hidden' = 'visible') {
  await page.addInitScript(recordNotifications, visibility);
  await page.goto(host.url + '/agents-notch/');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
}

// quiet gives a notification that should not come the time to come anyway
// (one patch and a heartbeat), then checks it did not.
async function quiet(page: Page, want: number) {
  await page.waitForTimeout(600);
  expect(await notes(page)).toHaveLength(want);
}

test.describe('notifications', () => {
  let host: Host;
  test.beforeEach(async ({ context }) => {
    host = await startHost();
    await context.grantPermissions(['notifications'], { origin: host.url });
  });
  test.afterEach(async () => {
    await host.stop();
  });

  test('a hidden page is told when a row turns to needs you, once; not while visible; not for rows present at load', async ({ page }) => {
    test.setTimeout(90_000); // two waits for the host's 5 s between alerts
    const before = uid('before');
    const worker = uid('worker');
    await sendEvents(host.url, [
      ev('session.opened', before, { cwd: '/srv/before', title: 'Asked before the page loaded' }),
      ev('approval.requested', before, { tool: 'bash', reason: 'rm -rf build' }),
      ev('session.opened', worker, { cwd: '/srv/worker', title: 'Worker' }),
      ev('turn.started', worker),
    ]);
    // opened in a background tab: hidden from the start, and the question
    // already waiting is not news
    await loadBoard(page, host, 'hidden');
    await expect(page.locator('#bell')).toHaveAttribute('data-perm', 'granted');
    await expect(row(page, before)).toHaveAttribute('data-status', 'attention');

    // (the question asked before the page loaded was the host's last alert:
    // one comes at most every 5 s, so the worker asks until it is told)
    await expect
      .poll(
        async () => {
          if ((await row(page, worker).getAttribute('data-status')) === 'attention') {
            await sendEvents(host.url, [ev('approval.resolved', worker, { outcome: 'cancelled' })]);
            await expect(row(page, worker)).toHaveAttribute('data-status', 'working');
          }
          await sendEvents(host.url, [ev('approval.requested', worker, { tool: 'pwsh', reason: 'Remove-Item build -Recurse' })]);
          await expect(row(page, worker)).toHaveAttribute('data-status', 'attention');
          return (await notes(page)).length;
        },
        { timeout: 15_000, intervals: [1_000] },
      )
      .toBe(1);
    const [n] = await notes(page);
    expect(n.title).toBe('Worker needs you');
    expect(n.body).toContain('worker');
    expect(n.body).toContain('pwsh');
    expect(n.tag).toBe(`agents-notch:${worker}`);
    // the same status again is no transition
    await sendEvents(host.url, [ev('context.tokens', worker, { tokens: 1200 })]);
    await quiet(page, 1);

    // a new rise within 5 s of the last alert is dropped (one alert per 5 s
    // across sessions; checked when this machine is quick enough to rise
    // again within 4 s — host/alert_test.go checks it on a clock) …
    // (the host's own time of the alert, on this machine's clock)
    const firstAt = Number(await page.locator('#board-alert').getAttribute('data-seq'));
    await sendEvents(host.url, [ev('approval.resolved', worker, { outcome: 'allowed-once' })]);
    await expect(row(page, worker)).toHaveAttribute('data-status', 'working');
    await sendEvents(host.url, [ev('approval.requested', worker, { tool: 'git', reason: 'push' })]);
    await expect(row(page, worker)).toHaveAttribute('data-status', 'attention');
    if (Date.now() - firstAt < 4_000) await quiet(page, 1);
    // … and a rise once the 5 s are over is a new notification
    await expect
      .poll(
        async () => {
          // (each step rendered: the host alerts on what the board showed)
          await sendEvents(host.url, [ev('approval.resolved', worker, { outcome: 'allowed-once' })]);
          await expect(row(page, worker)).toHaveAttribute('data-status', 'working');
          await sendEvents(host.url, [ev('approval.requested', worker, { tool: 'git', reason: 'push' })]);
          await expect(row(page, worker)).toHaveAttribute('data-status', 'attention');
          return (await notes(page)).length;
        },
        { timeout: 15_000, intervals: [1_000] },
      )
      .toBe(2);

    // while the page is looked at, nothing
    await setVisibility(page, 'visible');
    const seenWhileVisible = uid('visible');
    await sendEvents(host.url, [
      ev('session.opened', seenWhileVisible, { cwd: '/srv/v', title: 'Seen' }),
      ev('approval.requested', seenWhileVisible, { tool: 'bash' }),
    ]);
    await expect(row(page, seenWhileVisible)).toHaveAttribute('data-status', 'attention');
    await quiet(page, 2);
    expect((await notes(page)).map((x) => x.title)).not.toContain('Asked before the page loaded needs you');
  });

  test('clicking a notification unfolds the board at that row', async ({ page }) => {
    const id = uid('click');
    await sendEvents(host.url, [ev('session.opened', id, { cwd: '/srv/click', title: 'Click me' }), ev('turn.started', id)]);
    await loadBoard(page, host);
    await foldBoard(page);
    await setVisibility(page, 'hidden');
    await sendEvents(host.url, [ev('turn.ended', id, { outcome: 'error' })]);
    await expect.poll(() => notes(page)).toHaveLength(1);
    expect((await notes(page))[0].title).toBe('Click me failed');
    await expect(page.locator('#sheet')).toBeHidden();
    await setVisibility(page, 'visible');
    await page.evaluate(() => (window as any).__notes[0].n.dispatchEvent(new Event('click')));
    await expect(page.locator('html')).toHaveAttribute('data-open', '');
    await expect(page.locator('#sheet')).toBeVisible();
    await expect(row(page, id)).toHaveAttribute('data-flash', '');
    await expect(row(page, id).getByRole('button', { name: 'Close out Click me' })).toBeFocused();
  });

  test('alerts: off raises none; needs-you raises questions and failures; all raises finishes too', async ({ page }) => {
    const ids = { ask: uid('ask'), fail: uid('fail'), done: uid('done'), done2: uid('done2') };
    await sendEvents(
      host.url,
      Object.entries(ids).flatMap(([name, id]) => [ev('session.opened', id, { cwd: `/srv/${name}`, title: name }), ev('turn.started', id)]),
    );
    await loadBoard(page, host);
    await setVisibility(page, 'hidden');

    await setSettings(host.url, { alerts: 'off' });
    await expect(page.locator('#board-cfg')).toHaveAttribute('data-alerts', 'off');
    await sendEvents(host.url, [ev('approval.requested', ids.ask, { tool: 'bash' })]);
    await expect(row(page, ids.ask)).toHaveAttribute('data-status', 'attention');
    await quiet(page, 0);

    await setSettings(host.url, { alerts: 'needs-you' });
    await expect(page.locator('#board-cfg')).toHaveAttribute('data-alerts', 'needs-you');
    await sendEvents(host.url, [ev('turn.ended', ids.done, { outcome: 'completed' }), ev('turn.ended', ids.fail, { outcome: 'error' })]);
    await expect.poll(() => notes(page)).toHaveLength(1);
    expect((await notes(page))[0].title).toBe('fail failed');
    await expect(row(page, ids.done)).toHaveAttribute('data-status', 'done');
    await quiet(page, 1);

    await setSettings(host.url, { alerts: 'all' });
    await expect(page.locator('#board-cfg')).toHaveAttribute('data-alerts', 'all');
    // (past the 5 s since the last alert)
    await expect
      .poll(
        async () => {
          await sendEvents(host.url, [ev('turn.started', ids.done2)]);
          await expect(row(page, ids.done2)).toHaveAttribute('data-status', 'working');
          await sendEvents(host.url, [ev('turn.ended', ids.done2, { outcome: 'completed' })]);
          await expect(row(page, ids.done2)).toHaveAttribute('data-status', 'done');
          return (await notes(page)).length;
        },
        { timeout: 15_000, intervals: [1_000] },
      )
      .toBe(2);
    expect((await notes(page))[1].title).toBe('done2 is done');
  });

  test('the bell names the permission and the alerts it will raise', async ({ page }) => {
    await loadBoard(page, host);
    const bell = page.locator('#bell');
    await expect(bell).toBeVisible();
    await expect(bell).toHaveAccessibleName('Notifications on: questions, failures and finishes, while the board is not in front');
    await setSettings(host.url, { alerts: 'needs-you' });
    await expect(bell).toHaveAccessibleName('Notifications on: questions and failures, while the board is not in front');
    await setSettings(host.url, { alerts: 'off' });
    await expect(bell).toHaveAccessibleName(/alert island setting is None/);
    // nothing asked: the permission was granted before
    expect(await page.evaluate(() => (window as any).__asked)).toBe(0);
  });
});

test.describe('notifications without permission', () => {
  let host: Host;
  test.beforeEach(async () => {
    host = await startHost();
  });
  test.afterEach(async () => {
    await host.stop();
  });

  test('permission is asked only from the bell, never on load', async ({ page }) => {
    const id = uid('noperm');
    await sendEvents(host.url, [ev('session.opened', id, { cwd: '/srv/noperm' }), ev('turn.started', id)]);
    await loadBoard(page, host);
    await setVisibility(page, 'hidden');
    await sendEvents(host.url, [ev('approval.requested', id, { tool: 'bash' })]);
    await expect(row(page, id)).toHaveAttribute('data-status', 'attention');
    await quiet(page, 0);
    expect(await page.evaluate(() => (window as any).__asked)).toBe(0);
    await setVisibility(page, 'visible');

    const bell = page.locator('#bell');
    await expect(bell).toHaveAttribute('data-perm', 'default');
    await expect(bell).toHaveAccessibleName('Notify me when a session needs me');
    await bell.click();
    await expect.poll(() => page.evaluate(() => (window as any).__asked)).toBe(1);
  });
});

test.describe('title and icon', () => {
  let host: Host;
  test.beforeEach(async () => {
    host = await startHost();
  });
  test.afterEach(async () => {
    await host.stop();
  });

  test('the title carries the count that needs you (and the oldest wait); the icon is the status dot; unknown shows neither', async ({ page }) => {
    const a = uid('title-a');
    const b = uid('title-b');
    await page.goto(host.url + '/agents-notch/');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(page).toHaveTitle('agents notch');
    const icon = page.locator('link[rel="icon"]');
    await expect(icon).toHaveAttribute('data-status', 'idle');

    await sendEvents(host.url, [
      ev('session.opened', a, { cwd: '/srv/a' }),
      ev('approval.requested', a, { tool: 'bash' }),
      ev('session.opened', b, { cwd: '/srv/b' }),
      ev('approval.requested', b, { tool: 'git' }),
    ]);
    await expect(page).toHaveTitle(/^\(2\) needs you · (\S+ · )?notch$/);
    await expect(icon).toHaveAttribute('data-status', 'attention');
    await expect(icon).toHaveAttribute('href', /^data:image\/svg\+xml,/);
    expect(decodeURIComponent((await icon.getAttribute('href'))!)).toContain('#fbbf24'); // amber

    await sendEvents(host.url, [ev('approval.resolved', a, { outcome: 'allowed-once' })]);
    await expect(page).toHaveTitle(/^\(1\) needs you · (\S+ · )?notch$/);
    await sendEvents(host.url, [ev('approval.resolved', b, { outcome: 'rejected' })]);
    await expect(page).toHaveTitle('agents notch');
    await expect(icon).toHaveAttribute('data-status', 'working');

    await sendEvents(host.url, [ev('approval.requested', a, { tool: 'bash' })]);
    await expect(page).toHaveTitle(/^\(1\) needs you · (\S+ · )?notch$/);
    host.proc.kill('SIGSTOP');
    await expect(page).toHaveTitle('status unknown · notch', { timeout: 6_000 });
    await expect(icon).toHaveAttribute('data-status', 'unknown');
    host.proc.kill('SIGCONT');
    await expect(page).toHaveTitle(/^\(1\) needs you · (\S+ · )?notch$/, { timeout: 10_000 });
  });
});
