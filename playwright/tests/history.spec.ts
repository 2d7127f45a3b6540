// A row's short history (issue 22): unfolding a row shows its last events,
// newest first, kept by the host in memory; it follows the row while
// unfolded; hostile strings are text. A host of its own.
import { test, expect } from '@playwright/test';
import { sendEvents, startHost, type Host } from './host';
import { ev, expectAxeClean, openBoard, row } from './ui';

// This machine is shared; axe takes its time.
test.describe.configure({ timeout: 120_000 });

let host: Host;
test.beforeAll(async () => {
  host = await startHost();
});
test.afterAll(async () => {
  await host?.stop();
});

test('unfolding a row shows its history, newest first, and it follows the row', async ({ page }) => {
  await sendEvents(host.url, [
    ev('session.opened', 'h-1', { cwd: '/src/atlas', title: 'Fix the flaky test' }),
    ev('turn.started', 'h-1'),
    ev('tool.started', 'h-1', { tool: 'bash' }),
    ev('tool.ended', 'h-1', { tool: 'bash', outcome: 'error' }),
    ev('tool.started', 'h-1', { tool: '<img src=x onerror=alert(1)>' }),
  ]);
  await openBoard(page, host.url);
  const r = row(page, 'h-1');
  const toggle = r.locator('.hist-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toHaveAttribute('aria-label', 'History of Fix the flaky test');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');

  const panel = page.locator(`#${await toggle.getAttribute('aria-controls')}`);
  await expect(panel).toBeVisible();
  const items = panel.locator('.hist-list li');
  await expect(items).toHaveCount(5);
  await expect(items.first()).toContainText('tool started');
  await expect(items.first().locator('.hist-tool')).toHaveText('<img src=x onerror=alert(1)>');
  await expect(items.nth(1)).toContainText('tool ended');
  await expect(items.nth(1).locator('.hist-outcome')).toHaveText('error');
  await expect(items.last()).toContainText('session opened');
  await expect(items.first().locator('.hist-at')).toHaveText(/^\d\d:\d\d:\d\d$/);
  await expect(panel).toContainText('kept in memory');
  await expectAxeClean(page, 'a row with its history unfolded');

  // While unfolded, it follows the row.
  await sendEvents(host.url, [ev('tool.ended', 'h-1', { tool: 'x', outcome: 'ok' }), ev('turn.ended', 'h-1', { outcome: 'completed' })]);
  await expect(items.first()).toContainText('turn ended');
  await expect(items).toHaveCount(7);

  // Folded again from the keyboard, it is gone.
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(panel).toHaveCount(0);
});
