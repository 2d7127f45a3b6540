// For a keyboard: after a ✕ or a Reset takes its control away, focus moves
// to the next sensible control instead of dropping to <body>; the tab's
// counts have words; a refused Open or ✕ names the party that failed.
import { test, expect } from '@playwright/test';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { sendEvents, startHost, type Host } from './host';
import { ev, expectAxeClean, openBoard, row, setSettings, uid } from './ui';

let host: Host | undefined;
test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('after a ✕, focus goes to the next row with an action, then the one before, then the list', async ({ page }) => {
  host = await startHost();
  const [a, b, w, c] = [uid('a'), uid('b'), uid('w'), uid('c')];
  const done = (id: string, title: string) => [
    ev('session.opened', id, { cwd: `/srv/${title}`, title }),
    ev('turn.started', id),
    ev('turn.ended', id, { outcome: 'completed' }),
  ];
  await sendEvents(host.url, [
    ...done(a, 'Alpha'),
    ...done(b, 'Bravo'),
    ev('session.opened', w, { cwd: '/srv/w', title: 'Working' }),
    ev('turn.started', w),
    ...done(c, 'Charlie'),
  ]);
  await openBoard(page, host.url);
  await row(page, a).getByRole('button', { name: 'Close out Alpha' }).focus();
  await page.keyboard.press('Enter');
  await expect(row(page, a)).toHaveCount(0);
  await expect(row(page, b).getByRole('button', { name: 'Close out Bravo' })).toBeFocused();
  // the next row has no action: the one after it
  await page.keyboard.press('Enter');
  await expect(row(page, b)).toHaveCount(0);
  await expect(row(page, c).getByRole('button', { name: 'Close out Charlie' })).toBeFocused();
  // the last: nothing after, nothing before with an action → the list
  await page.keyboard.press('Enter');
  await expect(row(page, c)).toHaveCount(0);
  await expect(page.locator('#sheet .rows-scroll')).toBeFocused();
});

test('after a Reset, focus goes to that setting’s control; after Reset all, to the first control', async ({ page }) => {
  host = await startHost();
  await setSettings(host.url, { scale: 1.25, anchor: 'top-left' });
  await page.goto(host.url + '/agents-notch/pane');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const reset = page.locator('#set-anchor').getByRole('button', { name: 'Reset Anchor' });
  await reset.focus();
  await page.keyboard.press('Enter');
  await expect(reset).toBeDisabled();
  await expect(page.getByRole('radio', { name: 'Center' })).toBeFocused();

  await page.locator('#reset-all').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#reset-all')).toBeDisabled();
  await expect(page.getByLabel('Scale', { exact: true })).toBeFocused();
});

test('the tab’s counts have words: in its name, and in a legend on focus', async ({ page }) => {
  host = await startHost();
  const [q, x, y] = [uid('q'), uid('x'), uid('y')];
  await sendEvents(host.url, [
    ev('session.opened', q, { cwd: '/srv/q' }),
    ev('approval.requested', q, { tool: 'bash' }),
    ev('session.opened', x, { cwd: '/srv/x' }),
    ev('turn.started', x),
    ev('session.opened', y, { cwd: '/srv/y' }),
    ev('turn.started', y),
  ]);
  await page.goto(host.url + '/agents-notch/');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const tab = page.locator('#tab');
  await expect(tab).toHaveAccessibleName('notch-web: 1 needs you, 2 working');
  const legend = tab.locator('.legend');
  // a tab opens the board unfolded: at a desk the dashboard's header says the counts in words
  await expect(page.locator('#sheet')).toBeVisible();
  await expect(legend).toHaveCSS('position', 'static');
  await page.keyboard.press('Tab');
  await expect(tab).toBeFocused();
  await page.keyboard.press('Enter'); // folded, the legend hangs under the focused tab
  await expect(page.locator('#sheet')).toBeHidden();
  await expect(legend).toBeVisible();
  await expect(legend).toHaveCSS('position', 'absolute');
  await expect(legend.locator('.legend-item')).toHaveText(['1 needs you', '2 working']);
  // each entry wears its count's colour
  const colour = (sel: string) => page.locator(sel).evaluate((e) => getComputedStyle(e).color);
  expect(await colour('#tab .count[data-status="attention"]')).toBe('rgb(251, 191, 36)');
  expect(
    await page.locator('#tab .legend-item[data-status="attention"]').evaluate((e) => getComputedStyle(e, '::before').backgroundColor),
  ).toBe('rgb(251, 191, 36)');
  // unfolded in the notch's shape, the rows' chips are the legend
  await page.setViewportSize({ width: 800, height: 720 });
  await page.keyboard.press('Enter');
  await expect(page.locator('#sheet')).toBeVisible();
  await expect(legend).toBeHidden();
});

test('a refused Open or ✕ names who refused it: the harness behind notch-web, or notch-web', async ({ page }) => {
  // a harness door that fails
  const door = http.createServer((_req, res) => res.writeHead(500).end());
  await new Promise<void>((r) => door.listen(0, '127.0.0.1', () => r()));
  try {
    host = await startHost(['--open-url', `http://127.0.0.1:${(door.address() as AddressInfo).port}/open`]);
    const id = uid('refused');
    await sendEvents(host.url, [
      ev('session.opened', id, { cwd: '/srv/refused', title: 'Refused' }),
      ev('turn.started', id),
      ev('turn.ended', id, { outcome: 'completed' }),
    ]);
    await openBoard(page, host.url);
    const toast = page.locator('#toast');
    await row(page, id).getByRole('button', { name: 'Open Refused' }).click();
    await expect(toast).toHaveText('Could not open the session: the harness’s open door did not answer (HTTP 502).');
    await expect(page.locator('#announce')).toHaveText(/harness’s open door/);
    await expectAxeClean(page, 'the toast shown');

    // a ✕ for a session notch-web no longer has (another tab closed it)
    // (the ✕ posts its row's session id)
    await row(page, id).evaluate((e) => e.setAttribute('data-session-id', 'gone-already'));
    const close = row(page, 'gone-already').getByRole('button', { name: 'Close out Refused' });
    await close.click();
    await expect(toast).toHaveText('Could not close out the session: notch-web has no such session on the board (HTTP 404).');
    // the row stays, and focus with it
    await expect(close).toBeFocused();
  } finally {
    door.close();
  }
});
