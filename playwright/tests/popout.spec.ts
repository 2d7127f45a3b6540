// A notch on any OS: the pop-out. Where the browser has Document
// Picture-in-Picture (Chromium, headless included) the board shows in an
// always-on-top window that mirrors the page's board on the page's own
// stream; without it, a small window of its own on ?popout=1. Both stay
// live, both pass axe, and closing either brings the board back. Both
// mirror the desktop overlay: they open folded, and the hover settings
// (ghost, hold, open on hover, the top edge) apply there, as they do not in
// a plain tab (board.spec).
import { test, expect } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendEvents, startHost, type Host } from './host';
import { ev, expectAxeClean, row, uid } from './ui';

async function streams(host: Host): Promise<number> {
  return (await (await fetch(host.url + '/healthz')).json()).streams;
}

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await host.stop();
});

test('Picture-in-Picture: sized to the folded tab, live on the same stream, grows when unfolded; ✕ works there; closing it brings the board back', async ({
  page,
  context,
}) => {
  test.slow(); // three axe scans
  // Record the sizes asked of the pop-out (headless Chromium keeps Playwright's
  // viewport whatever the window is asked to be).
  await page.addInitScript(() => {
    const w = window as any;
    w.__pip = [];
    const dpip = w.documentPictureInPicture;
    const request = dpip.requestWindow.bind(dpip);
    dpip.requestWindow = async (opts: { width: number; height: number }) => {
      w.__pip.push({ open: [opts.width, opts.height] });
      const win = await request(opts);
      const resize = win.resizeTo.bind(win);
      win.resizeTo = (x: number, y: number) => {
        w.__pip.push({ resize: [x, y] });
        resize(x, y);
      };
      return win;
    };
  });
  const a = uid('pip-a');
  const b = uid('pip-b');
  await sendEvents(host.url, [
    ev('session.opened', a, { cwd: '/srv/a', title: 'First to close' }),
    ev('turn.started', a),
    ev('turn.ended', a, { outcome: 'completed' }),
    ev('session.opened', b, { cwd: '/srv/b', title: 'Next in line' }),
    ev('turn.started', b),
    ev('turn.ended', b, { outcome: 'error' }),
  ]);
  await page.goto(host.url + '/agents-notch/');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const open = await streams(host);
  await expect(page.locator('#popout')).toBeVisible(); // a tab opens the board unfolded
  await expect(page.locator('#popout')).toHaveAccessibleName('Pop out the board: a small window on top');

  const [pip] = await Promise.all([context.waitForEvent('page'), page.locator('#popout').click()]);
  await expect(pip.locator('html')).toHaveAttribute('data-popout', '');
  await expect(pip.locator('#tab')).toBeVisible();
  await expect(pip.locator('#sheet')).toBeHidden(); // it opens folded
  await expect(page.locator('#notch')).toBeHidden();
  await expect(page.locator('#popped')).toBeVisible();
  const asked = await page.evaluate(() => (window as any).__pip);
  expect(asked[0].open[0]).toBeLessThan(400); // the folded tab, not the page's dashboard
  expect(asked[0].open[1]).toBeLessThan(80); // the folded tab, not the board
  await expectAxeClean(pip, 'the pop-out, folded');
  await expectAxeClean(page, 'the page, its board popped out');

  // live, on the page's own stream
  const c = uid('pip-c');
  await sendEvents(host.url, [ev('session.opened', c, { cwd: '/srv/c', title: 'Arrived later' }), ev('approval.requested', c, { tool: 'bash' })]);
  await expect(pip.locator('#tab .dot')).toHaveAttribute('data-status', 'attention');
  await expect(pip.locator(`.row[data-session-id="${c}"]`)).toHaveAttribute('data-status', 'attention');
  expect(await streams(host)).toBe(open);

  // it mirrors the overlay: the ghost rules apply there (hoverMode ghost, the default)
  const tb = (await pip.locator('#tab').boundingBox())!;
  await pip.mouse.move(tb.x + tb.width / 2, tb.y + tb.height / 2);
  await expect(pip.locator('html')).toHaveAttribute('data-ghost', '');
  await expect(pip.locator('#notch')).toHaveCSS('opacity', '0.18');
  // a click unfolds it (a pop-out has nothing beneath it to pass the click to), and it grows to the board
  await pip.locator('#tab').click();
  await expect(pip.locator('html')).toHaveAttribute('data-open', '');
  await expect(pip.locator('#sheet')).toBeVisible();
  await expect(pip.locator('#tab')).toHaveAttribute('aria-expanded', 'true');
  const resized = (await page.evaluate(() => (window as any).__pip)).filter((x: any) => x.resize);
  expect(resized.at(-1).resize[1]).toBeGreaterThan(asked[0].open[1] + 100);
  await expectAxeClean(pip, 'the pop-out, unfolded');

  // the ✕ there closes out the session here, and focus moves on
  await pip.getByRole('button', { name: 'Close out First to close' }).click();
  await expect(pip.locator(`.row[data-session-id="${a}"]`)).toHaveCount(0);
  await expect(row(page, a)).toHaveCount(0);
  await expect(pip.getByRole('button', { name: 'Close out Next in line' })).toBeFocused();
  const manual = path.join(host.home, 'state', 'session-finished', 'manual.json');
  expect(fs.readFileSync(manual, 'utf8')).toContain(a);

  // Escape folds it and shrinks it back
  await pip.keyboard.press('Escape');
  await expect(pip.locator('#sheet')).toBeHidden();
  await expect(pip.locator('#tab')).toBeFocused();

  // closing it brings the board back to the page
  await pip.close();
  await expect(page.locator('#notch')).toBeVisible();
  await expect(page.locator('#popped')).toBeHidden();
  await expect(page.locator('html')).not.toHaveAttribute('data-popped', '');
  await sendEvents(host.url, [ev('tool.started', c, { tool: 'grep' })]);
  await expect(row(page, c)).toBeAttached();
});

test('without Picture-in-Picture: a small window of its own, live, and putting it back brings the board back', async ({
  page,
  context,
}) => {
  test.slow(); // an axe scan
  await context.addInitScript(() => {
    Object.defineProperty(window, 'documentPictureInPicture', { value: undefined });
  });
  const id = uid('win');
  await sendEvents(host.url, [ev('session.opened', id, { cwd: '/srv/win', title: 'In a window' }), ev('turn.started', id)]);
  await page.goto(host.url + '/agents-notch/');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const [popup] = await Promise.all([context.waitForEvent('page'), page.locator('#popout').click()]);
  await popup.waitForLoadState();
  expect(new URL(popup.url()).search).toBe('?popout=1');
  await expect(popup.locator('html')).toHaveAttribute('data-popout', '');
  await expect(popup.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(page.locator('#notch')).toBeHidden();
  await expect(page.locator('#popped')).toBeVisible();

  // folded, as the overlay: the pointer ghosts it; a click unfolds it, and it stays live
  await expect(popup.locator('#sheet')).toBeHidden();
  await popup.locator('#tab').hover();
  await expect(popup.locator('html')).toHaveAttribute('data-ghost', '');
  await popup.locator('#tab').click();
  await expect(popup.locator('#sheet')).toBeVisible();
  await sendEvents(host.url, [ev('approval.requested', id, { tool: 'bash' })]);
  await expect(row(popup, id)).toHaveAttribute('data-status', 'attention');
  await expect(popup.locator('.tool-link:visible')).toHaveCount(0); // no way out of the small window (Settings, History)
  await expectAxeClean(popup, 'the pop-out window, unfolded');

  await expect(popup.locator('#popout')).toHaveAccessibleName('Put the board back in the page');
  await Promise.all([popup.waitForEvent('close'), popup.locator('#popout').click()]);
  await expect(page.locator('#notch')).toBeVisible();
  await expect(page.locator('#popped')).toBeHidden();
});

test('"Bring it back" on the page closes the pop-out', async ({ page, context }) => {
  await page.goto(host.url + '/agents-notch/');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const [pip] = await Promise.all([context.waitForEvent('page'), page.locator('#popout').click()]);
  await expect(pip.locator('#tab')).toBeVisible();
  await Promise.all([pip.waitForEvent('close'), page.locator('#popin').click()]);
  await expect(page.locator('#notch')).toBeVisible();
  // back in the page, the board is a page again: unfolded, focus on the control that sent it away
  await expect(page.locator('#sheet')).toBeVisible();
  await expect(page.locator('#popout')).toBeFocused();
});

test('the pop-out mirrors the overlay: ghost fades it and it unfolds after holdMs; open unfolds on hover; leaving folds it; the top edge opens it', async ({
  page,
}) => {
  await postSettings(host, { hoverMode: 'ghost', holdMs: 500, ghostOpacity: 0.3 });
  await page.setViewportSize({ width: 560, height: 420 });
  await page.goto(host.url + '/agents-notch/?popout=1');
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-popout', '');
  await expect(html).toHaveAttribute('data-live', 'live');
  await expect(page.locator('#board-cfg')).toHaveAttribute('data-hold-ms', '500');
  await expect(page.locator('#sheet')).toBeHidden(); // it starts folded, as the overlay
  const box = (await page.locator('#tab').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 2);
  await expect(html).toHaveAttribute('data-ghost', '');
  await expect(page.locator('#notch')).toHaveCSS('opacity', '0.3');
  await expect(html).toHaveAttribute('data-open', ''); // after the rest
  await expect(html).not.toHaveAttribute('data-ghost', '');
  await expect(page.locator('#sheet')).toBeVisible();
  await page.mouse.move(-1, -1); // leaving folds it again
  await page.dispatchEvent('html', 'pointerleave');
  await expect(html).not.toHaveAttribute('data-open', '');

  await postSettings(host, { hoverMode: 'open' });
  await expect(page.locator('#board-cfg')).toHaveAttribute('data-hover-mode', 'open');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(html).toHaveAttribute('data-open', '');
  await page.dispatchEvent('html', 'pointerleave');
  await expect(html).not.toHaveAttribute('data-open', '');

  await postSettings(host, { hoverMode: 'ghost', holdMs: 4000, topEdgeOpens: true });
  await expect(page.locator('#board-cfg')).toHaveAttribute('data-hold-ms', '4000');
  await page.mouse.move(box.x + box.width / 2, 0);
  await expect(html).toHaveAttribute('data-open', '', { timeout: 1_000 });
  // the pin keeps it open when the pointer leaves
  await page.locator('#pin').click();
  await page.dispatchEvent('html', 'pointerleave');
  await expect(page.locator('#sheet')).toBeVisible();
  await expect(page.locator('#pin')).toHaveAttribute('aria-pressed', 'true');
});

async function postSettings(h: Host, keys: Record<string, unknown>): Promise<void> {
  const res = await fetch(h.url + '/agents-notch/settings', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(keys),
  });
  expect(res.status).toBe(200);
}
