// The board page, driven through the real binary: events posted by the test
// become rows and change them live; in a browser tab the board opens
// unfolded and a click or Enter on the tab folds it, in every hover mode
// (the hover settings are the pop-out's: popout.spec); at desktop widths it
// is a dashboard; the unknown state shows within 5 s of the host going silent.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { BASE, DSH_HOME, sendEvents, type Host } from './host';
import {
  BUDGET_PATCH,
  ev,
  finish,
  foldBoard,
  openBoard,
  resetSettings,
  row,
  setSettings,
  startHostWithPatch,
  uid,
  rowProject,
} from './ui';
import { startHost } from './host';

test.describe('board on the shared host', () => {
  test.beforeEach(async () => {
    await resetSettings(BASE);
  });
  // leave the shared host's settings as other spec files expect to find them
  test.afterEach(async () => {
    await resetSettings(BASE);
  });

  test('a session goes working → attention → working → done live, and the ✕ closes it out', async ({ page }) => {
    await openBoard(page);
    const id = uid('life');
    await sendEvents(BASE, [
      ev('session.opened', id, { cwd: '/home/dev/src/lifecycle', title: 'Lifecycle under test' }),
      ev('turn.started', id),
      ev('tool.started', id, { tool: 'bash' }),
    ]);
    const r = row(page, id);
    await expect(r).toHaveAttribute('data-status', 'working');
    await expect(r.locator('.title')).toHaveText('Lifecycle under test');
    await expect(rowProject(r)).toHaveText('lifecycle');
    await expect(r.locator('.activity[data-kind="tool"]')).toContainText('bash');
    await expect(r.locator('.bot')).toHaveAttribute('data-mood', 'busy');
    await expect(r.locator('.steps')).toHaveText('1 step');
    // since is ticked on the client
    await expect(r.locator('time.since')).toHaveText(/^(now|\d+s)$/);
    await expect(r.locator('.act.close')).toHaveCount(0);

    await sendEvents(BASE, [ev('approval.requested', id, { tool: 'pwsh', reason: 'Remove-Item build -Recurse' })]);
    await expect(r).toHaveAttribute('data-status', 'attention');
    await expect(r.locator('.approval .tool')).toHaveText('pwsh');
    await expect(r.locator('.approval .reason')).toHaveText('Remove-Item build -Recurse');
    await expect(r.locator('.bot')).toHaveAttribute('data-mood', 'asking');
    await expect(r.locator('.bot')).toHaveAttribute('aria-label', 'bot asking you');
    await expect(page.locator('#tab .dot')).toHaveAttribute('data-status', 'attention');
    await expect(page.locator('#tab')).toHaveAccessibleName(/needs you/);
    await expect(page.locator('#announce')).toContainText('needs you');

    await sendEvents(BASE, [ev('approval.resolved', id, { outcome: 'allowed-once' })]);
    await expect(r).toHaveAttribute('data-status', 'working');
    await expect(r.locator('.approval')).toHaveCount(0);
    // pleased for 3 s after the allowed approval, computed on the client
    await expect(r.locator('.bot')).toHaveAttribute('data-pleased', '');
    await expect(r.locator('.bot')).toHaveAttribute('aria-label', /pleased/);
    await expect(r.locator('.bot')).not.toHaveAttribute('data-pleased', '', { timeout: 5_000 });
    await expect(r.locator('.bot')).toHaveAttribute('data-mood', 'busy');

    await sendEvents(BASE, [
      ev('tool.ended', id, { tool: 'bash', outcome: 'ok' }),
      ev('context.tokens', id, { tokens: 412034 }),
      ev('turn.ended', id, { outcome: 'completed' }),
    ]);
    await expect(r).toHaveAttribute('data-status', 'done');
    await expect(r.locator('.bot')).toHaveAttribute('data-mood', 'done');
    await expect(r.locator('.chip')).toHaveText('done');

    await r.getByRole('button', { name: 'Close out Lifecycle under test' }).click();
    await expect(r).toHaveCount(0);
    const manual = path.join(DSH_HOME, 'state', 'session-finished', 'manual.json');
    await expect.poll(() => (fs.existsSync(manual) ? fs.readFileSync(manual, 'utf8') : '')).toContain(id);
  });

  test('the face wears the error streak: confused at 1, dizzy at 2, back after a clean result', async ({ page }) => {
    await openBoard(page);
    const id = uid('streak');
    await sendEvents(BASE, [
      ev('session.opened', id, { cwd: '/srv/streak', title: 'Streak' }),
      ev('turn.started', id),
      ev('tool.started', id, { tool: 'bash' }),
      ev('tool.ended', id, { tool: 'bash', outcome: 'error' }),
    ]);
    const bot = row(page, id).locator('.bot');
    await expect(bot).toHaveAttribute('data-mood', 'confused');
    await expect(bot).toHaveAttribute('aria-label', 'bot confused by an error');
    await sendEvents(BASE, [ev('tool.started', id, { tool: 'bash' }), ev('tool.ended', id, { tool: 'bash', outcome: 'error' })]);
    await expect(bot).toHaveAttribute('data-mood', 'dizzy');
    // never words or numbers on the face
    await expect(bot).toHaveText('');
    await sendEvents(BASE, [ev('tool.started', id, { tool: 'edit' }), ev('tool.ended', id, { tool: 'edit', outcome: 'ok' })]);
    await expect(bot).toHaveAttribute('data-mood', 'thinking');
    await expect(row(page, id).locator('.activity')).toContainText('thinking after edit');
    await sendEvents(BASE, [ev('turn.ended', id, { outcome: 'error' })]);
    await expect(bot).toHaveAttribute('data-mood', 'error');
    await expect(row(page, id).locator('.act.close')).toBeVisible();
    await finish(BASE, id);
    await expect(row(page, id)).toHaveCount(0);
  });

  test('without a budget a row shows the bare token count: no bar, no percentage; nothing at 0', async ({ page }) => {
    await openBoard(page);
    const id = uid('tokens');
    const fresh = uid('fresh');
    await sendEvents(BASE, [
      ev('session.opened', id, { cwd: '/srv/tokens', title: 'Tokens' }),
      ev('turn.started', id),
      ev('context.tokens', id, { tokens: 412034 }),
      ev('session.opened', fresh, { cwd: '/srv/fresh' }),
    ]);
    const r = row(page, id);
    await expect(r.locator('.ctx-tokens')).toHaveText('context 412k tokens');
    // what is drawn is the bare count; the words are for screen readers only
    const drawn = await r
      .locator('.ctx-tokens')
      .evaluate((e) => [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(''));
    expect(drawn).toBe('412k');
    await expect(r.locator('.ctx-bar')).toHaveCount(0);
    await expect(r).not.toContainText('%');
    // docs/contract.md rule 5: 0 tokens and "" title draw nothing, not a placeholder
    const f = row(page, fresh);
    await expect(f).toBeAttached();
    await expect(f.locator('.ctx, .ctx-tokens')).toHaveCount(0);
    await expect(f.locator('.title')).toHaveCount(0);
    await expect(f.locator('.bot')).toHaveAttribute('data-mood', 'idle');
    await finish(BASE, id, fresh);
  });

  test('subagents sit under their parent', async ({ page }) => {
    await openBoard(page);
    const parent = uid('parent');
    const child = uid('child');
    await sendEvents(BASE, [
      ev('session.opened', parent, { cwd: '/srv/p', title: 'Parent' }),
      ev('session.opened', child, { cwd: '/srv/p', title: 'Child', origin: 'subagent', parent }),
    ]);
    await expect(row(page, child)).toHaveAttribute('data-depth', '1');
    const ids = await page.locator('#board .row').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.sessionId));
    expect(ids.indexOf(child)).toBe(ids.indexOf(parent) + 1);
    const [p, c] = await Promise.all([row(page, parent).boundingBox(), row(page, child).locator('.bot').boundingBox()]);
    const pb = await row(page, parent).locator('.bot').boundingBox();
    expect(c!.x).toBeGreaterThan(pb!.x + 8); // indented
    expect(p).not.toBeNull();
    await expect(row(page, child)).toHaveAttribute('data-identity', (await row(page, parent).getAttribute('data-identity'))!);
    await finish(BASE, child, parent);
  });

  test('showDone off removes done rows, and the ✓ count agrees with the rows', async ({ page }) => {
    await openBoard(page);
    const done = uid('done');
    const busy = uid('busy');
    await sendEvents(BASE, [
      ev('session.opened', done, { cwd: '/srv/d', title: 'Finished one' }),
      ev('turn.started', done),
      ev('turn.ended', done, { outcome: 'completed' }),
      ev('session.opened', busy, { cwd: '/srv/b', title: 'Busy one' }),
      ev('turn.started', busy),
    ]);
    await expect(row(page, done)).toHaveAttribute('data-status', 'done');
    const doneRows = await page.locator('#board .row[data-status="done"]').count();
    await expect(page.locator('#tab .count[data-status="done"]')).toHaveText(`✓${doneRows}`);

    await setSettings(BASE, { showDone: false });
    await expect(row(page, done)).toHaveCount(0);
    await expect(page.locator('#board .row[data-status="done"]')).toHaveCount(0);
    await expect(page.locator('#tab .count[data-status="done"]')).toHaveCount(0);
    await expect(row(page, busy)).toBeVisible();

    await setSettings(BASE, { showDone: null });
    await expect(row(page, done)).toBeAttached();
    await expect(page.locator('#tab .count[data-status="done"]')).toHaveText(/^✓\d+$/);
    await finish(BASE, done, busy);
  });

  test('the alert island follows alerts: all, needs-you, off', async ({ page }) => {
    await page.goto('/agents-notch/');
    const done = uid('island');
    await sendEvents(BASE, [
      ev('session.opened', done, { cwd: '/srv/i', title: 'Island' }),
      ev('turn.started', done),
      ev('turn.ended', done, { outcome: 'completed' }),
    ]);
    const island = page.locator('#tab .island');
    await expect(island).toBeVisible();
    // Only the done session might be alerting on a tidy board; either way
    // "off" hides the island whatever the rows are.
    await setSettings(BASE, { alerts: 'off' });
    await expect(island).toHaveCount(0);
    await setSettings(BASE, { alerts: 'needs-you' });
    await expect(page.locator('#tab .island[data-status="done"]')).toHaveCount(0);
    await setSettings(BASE, { alerts: null });
    await expect(island).toBeVisible();
    await finish(BASE, done);
  });

  test('a browser tab opens the board unfolded', async ({ page }) => {
    const id = uid('first');
    await sendEvents(BASE, [ev('session.opened', id, { cwd: '/srv/first', title: 'Seen at once' })]);
    await page.goto('/agents-notch/');
    // unfolded from the first paint: the server marks the page open
    await expect(page.locator('html')).toHaveAttribute('data-open', '');
    await expect(page.locator('#sheet')).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(page.locator('#tab')).toHaveAttribute('aria-expanded', 'true');
    await expect(row(page, id)).toBeVisible();
    // a page has no pin: it folds only when asked
    await expect(page.locator('#pin')).toBeHidden();
    await finish(BASE, id);
  });

  for (const hoverMode of ['ghost', 'open'] as const) {
    test(`the tab: a click folds and unfolds it with hoverMode ${hoverMode}; the pointer changes nothing in a tab`, async ({ page }) => {
      await setSettings(BASE, { hoverMode, holdMs: 500, topEdgeOpens: true });
      await openBoard(page);
      await expect(page.locator('#board-cfg')).toHaveAttribute('data-hover-mode', hoverMode);
      const html = page.locator('html');
      const tab = page.locator('#tab');
      await tab.click();
      await expect(tab).toHaveAttribute('aria-expanded', 'false');
      await expect(page.locator('#sheet')).toBeHidden();
      // resting on the folded tab, or against the top edge, neither ghosts nor unfolds it
      const box = (await tab.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 2);
      await page.mouse.move(box.x + box.width / 2, 0);
      // In the pop-out a move over the tab ghosts it (or, hoverMode open, unfolds it)
      // at once, and only a ghost starts the hold: a frame later, neither has happened.
      await page.evaluate(() => new Promise(requestAnimationFrame));
      await expect(html).not.toHaveAttribute('data-ghost', '');
      await expect(html).not.toHaveAttribute('data-open', '');
      await expect(page.locator('#notch')).toHaveCSS('pointer-events', 'auto');
      await tab.click();
      await expect(tab).toHaveAttribute('aria-expanded', 'true');
      await expect(page.locator('#sheet')).toBeVisible();
      // a click elsewhere on the page, or the pointer leaving, keeps it open
      await page.mouse.click(5, page.viewportSize()!.height - 5);
      await page.mouse.move(5, 600);
      await expect(page.locator('#sheet')).toBeVisible();
      await tab.click();
      await expect(page.locator('#sheet')).toBeHidden();
    });
  }

  test('keyboard: Enter or Space on the tab folds and unfolds it, focus stays on the tab; Escape leaves a page as it is', async ({ page }) => {
    await openBoard(page);
    const tab = page.locator('#tab');
    await page.keyboard.press('Tab');
    await expect(tab).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(tab).toHaveAttribute('aria-expanded', 'false');
    await expect(page.locator('#sheet')).toBeHidden();
    await page.keyboard.press('Enter');
    await expect(tab).toHaveAttribute('aria-expanded', 'true');
    await expect(page.locator('#sheet')).toBeVisible();
    await expect(tab).toBeFocused();
    // Escape closes a tip or empties the filter; it does not fold a page (the pop-out's it does)
    await page.keyboard.press('Escape');
    await expect(page.locator('#sheet')).toBeVisible();
    await page.keyboard.press('Space');
    await expect(tab).toHaveAttribute('aria-expanded', 'false');
    await expect(page.locator('#sheet')).toBeHidden();
    await page.keyboard.press('Space');
    await expect(page.locator('#sheet')).toBeVisible();
    // a patch does not fold it
    const id = uid('kept');
    await sendEvents(BASE, [ev('session.opened', id, { cwd: '/srv/kept' })]);
    await expect(row(page, id)).toBeAttached();
    await expect(page.locator('#sheet')).toBeVisible();
    // folding is remembered nowhere: a reload opens it again
    await page.keyboard.press('Enter');
    await expect(page.locator('#sheet')).toBeHidden();
    await page.reload();
    await expect(page.locator('#sheet')).toBeVisible();
    await finish(BASE, id);
  });

  test('the dashboard at 1920 px: rows in a grid whose columns line up under their names', async ({ page }) => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    const id = uid('wide');
    const sub = uid('wide-sub');
    await sendEvents(BASE, [
      ev('session.opened', id, { cwd: '/srv/wide', title: 'A wide row' }),
      ev('turn.started', id),
      ev('tool.started', id, { tool: 'go test ./...' }),
      ev('context.tokens', id, { tokens: 123000 }),
      ev('session.opened', sub, { cwd: '/srv/wide', title: 'Its subagent', origin: 'subagent', parent: id }),
      ev('turn.started', sub),
    ]);
    await openBoard(page);
    const r = row(page, id);
    await expect(r).toBeVisible();
    await expect(page.locator('#dash-head')).toBeVisible();
    await expect(page.locator('#pin')).toBeHidden();
    // the notch hangs full width: the page uses its width
    const notch = (await page.locator('#notch').boundingBox())!;
    expect(notch.width).toBeGreaterThan(1800);
    // one line per row: title, activity, steps, status, since, context, actions side by side
    const cells = {
      title: r.locator('.title'),
      activity: r.locator('.activity'),
      steps: r.locator('.steps'),
      status: r.locator('.chip'),
      since: r.locator('time.since'),
      ctx: r.locator('.ctx-tokens'),
      actions: r.locator('.row-actions'),
    };
    const boxes: Record<string, { x: number; y: number; width: number; height: number }> = {};
    for (const [k, l] of Object.entries(cells)) {
      await expect(l, k).toBeVisible();
      boxes[k] = (await l.boundingBox())!;
    }
    const order = Object.keys(cells);
    for (let i = 1; i < order.length; i++) {
      expect(boxes[order[i]].x, `${order[i]} right of ${order[i - 1]}`).toBeGreaterThanOrEqual(boxes[order[i - 1]].x + boxes[order[i - 1]].width - 1);
    }
    const mid = (b: { y: number; height: number }) => b.y + b.height / 2;
    for (const k of order) expect(Math.abs(mid(boxes[k]) - mid(boxes.title)), `${k} on the title's line`).toBeLessThan(12);
    // each column starts under its name, the subagent's as its parent's
    const head = async (c: string) => (await page.locator(`#dash-head .dh-${c}`).boundingBox())!.x;
    expect(Math.abs((await head('activity')) - boxes.activity.x)).toBeLessThan(4);
    expect(Math.abs((await head('status')) - boxes.status.x)).toBeLessThan(4);
    expect(Math.abs((await head('since')) - boxes.since.x)).toBeLessThan(4);
    const subChip = (await row(page, sub).locator('.chip').boundingBox())!;
    expect(Math.abs(subChip.x - boxes.status.x)).toBeLessThan(2);
    // the list does not scroll inside itself: the page does
    await expect(page.locator('#sheet .rows-scroll')).toHaveCSS('overflow-y', 'visible');
    // folded, it is the notch's tab again
    await page.locator('#tab').click();
    await expect(page.locator('#dash-head')).toBeHidden();
    expect((await page.locator('#notch').boundingBox())!.width).toBeLessThan(400);
    // narrow, unfolded, it keeps the notch's shape
    await page.locator('#tab').click();
    await page.setViewportSize({ width: 800, height: 900 });
    await expect(page.locator('#dash-head')).toBeHidden();
    expect((await page.locator('#notch').boundingBox())!.width).toBeLessThan(560);
    await finish(BASE, sub, id);
  });

  test('scale, opacity and anchor apply to the page', async ({ page }) => {
    await openBoard(page);
    await foldBoard(page); // the anchor places the folded tab
    await setSettings(BASE, { scale: 1.5, opacity: 0.6, anchor: 'top-right' });
    const notch = page.locator('#notch');
    await expect(notch).toHaveCSS('opacity', '0.6');
    await expect(page.locator('#board')).toHaveCSS('font-size', '19.5px');
    const box = (await notch.boundingBox())!;
    const width = page.viewportSize()!.width;
    expect(width - (box.x + box.width)).toBeLessThan(40);
  });

  test('maxRows rows show, the big bot counting as one and group headings not counted, then the list scrolls', async ({ page }) => {
    // maxRows shapes the notch (narrow widths, the pop-out); the dashboard shows every row
    await page.setViewportSize({ width: 800, height: 900 });
    const ids = [uid('rows'), uid('rows'), uid('rows'), uid('rows')];
    await sendEvents(BASE, ids.map((id, i) => ev('session.opened', id, { cwd: `/srv/rows${i}`, title: `Row ${i}` })));
    await setSettings(BASE, { maxRows: 3 });
    await openBoard(page);
    await expect.poll(() => page.locator('#board-vars').evaluate((e) => e.textContent)).toMatch(/--max-rows:3\b/);
    await expect(row(page, ids[3])).toBeAttached();
    // Two rows show whole (the big bot is the third), however much the
    // group headings between them take (each row here is its own project).
    const measure = () =>
      page.locator('#sheet .rows-scroll').evaluate((e) => {
        const top = e.getBoundingClientRect().top;
        const rows = [...e.querySelectorAll('.row')].map((r) => r.getBoundingClientRect());
        return {
          client: e.clientHeight,
          scroll: e.scrollHeight,
          heads: e.querySelectorAll('.group-head').length,
          second: rows[1].bottom - top,
          third: rows[2].top - top,
        };
      });
    await expect.poll(async () => Math.abs((await measure()).client - (await measure()).second)).toBeLessThanOrEqual(2);
    const m = await measure();
    expect(m.heads).toBeGreaterThan(1);
    expect(m.third).toBeGreaterThanOrEqual(m.client - 2);
    expect(m.scroll).toBeGreaterThan(m.client);
    await expect(page.locator('#bigbot')).toBeVisible();
    await finish(BASE, ...ids);
  });

  test('motion: auto follows reduced motion; on and off override it', async ({ page }) => {
    const id = uid('motion');
    await sendEvents(BASE, [ev('session.opened', id, { cwd: '/srv/m' }), ev('turn.started', id)]);
    await openBoard(page);
    const dot = row(page, id).locator('.bot .d1');
    const anim = () => dot.evaluate((e) => getComputedStyle(e).animationName);

    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await expect.poll(anim).toBe('think');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect.poll(anim).toBe('none');
    await setSettings(BASE, { motion: 'on' });
    await expect(page.locator('#board-cfg')).toHaveAttribute('data-motion', 'on');
    await expect.poll(anim).toBe('think');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await setSettings(BASE, { motion: 'off' });
    await expect(page.locator('#board-cfg')).toHaveAttribute('data-motion', 'off');
    await expect.poll(anim).toBe('none');
    await finish(BASE, id);
  });

  test('no serious or critical axe violations, folded and unfolded', async ({ page }) => {
    test.slow(); // three full axe scans
    const id = uid('axe');
    await sendEvents(BASE, [
      ev('session.opened', id, { cwd: '/srv/axe', title: 'Accessible' }),
      ev('turn.started', id),
      ev('approval.requested', id, { tool: 'bash', reason: 'make test' }),
      ev('context.tokens', id, { tokens: 52000 }),
    ]);
    await openBoard(page);
    await expect(row(page, id)).toBeVisible();
    const open = await new AxeBuilder({ page }).analyze();
    expect(open.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await foldBoard(page);
    const folded = await new AxeBuilder({ page }).analyze();
    expect(folded.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    // the dashboard at 1920 px
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.locator('#tab').click();
    await expect(page.locator('#dash-head')).toBeVisible();
    const wide = await new AxeBuilder({ page }).analyze();
    expect(wide.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await finish(BASE, id);
  });
});

test.describe('board on a private host', () => {
  let host: Host | undefined;
  test.afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  test('the context bar runs against the row budget and turns amber at hotAt', async ({ page }) => {
    host = await startHostWithPatch(BUDGET_PATCH);
    await openBoard(page, host.url);
    const id = uid('ctx');
    await sendEvents(host.url, [
      ev('session.opened', id, { cwd: '/srv/ctx', title: 'Budgeted' }),
      ev('context.tokens', id, { tokens: 200000 }),
    ]);
    const ctx = row(page, id).locator('.ctx');
    await expect(ctx).toHaveAttribute('aria-valuenow', '20');
    await expect(ctx.locator('.ctx-pct')).toHaveText('20%');
    await expect(ctx).not.toHaveAttribute('data-hot', '');
    const cool = await ctx.locator('.ctx-fill').evaluate((e) => getComputedStyle(e).backgroundColor);
    await sendEvents(host.url, [ev('context.tokens', id, { tokens: 612034 })]);
    await expect(ctx).toHaveAttribute('data-hot', '');
    await expect(ctx.locator('.ctx-pct')).toHaveText('61%');
    const hot = await ctx.locator('.ctx-fill').evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(hot).not.toBe(cool);
    expect(hot).toBe('rgb(251, 191, 36)'); // amber
    await expect(row(page, id).locator('.ctx-tokens')).toHaveCount(0);
  });

  test('the host stopped shows the unknown state within 5 s, and live again after it resumes', async ({ page }) => {
    host = await startHost();
    const id = uid('stop');
    await sendEvents(host.url, [ev('session.opened', id, { cwd: '/srv/stop', title: 'Stopped host' }), ev('turn.started', id)]);
    // the notch's shape, whose tab shows the counts (the dashboard's header says them in words)
    await page.setViewportSize({ width: 800, height: 720 });
    await openBoard(page, host.url);
    const html = page.locator('html');
    await expect(page.locator('#tab .count[data-status="working"]')).toBeVisible();

    host.proc.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await expect(html).toHaveAttribute('data-live', 'unknown', { timeout: 5_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    await expect(page.locator('#tab .counts')).toBeHidden();
    await expect(page.locator('#sheet .stale-note')).toBeVisible();
    await expect(page.locator('#tab')).toHaveAccessibleName('notch-web: status unknown');
    await expect(page.locator('#announce')).toHaveText('notch-web: status unknown');
    const dot = await page.locator('#tab .dot').evaluate((e) => getComputedStyle(e, '::after').content);
    expect(dot).toBe('"?"');

    host.proc.kill('SIGCONT');
    await expect(html).toHaveAttribute('data-live', 'live', { timeout: 10_000 });
    await expect(page.locator('#tab .count[data-status="working"]')).toBeVisible();
    await expect(page.locator('#sheet .stale-note')).toBeHidden();
    await expect(page.locator('#tab')).toHaveAccessibleName(/^notch-web: 1 working/);
    // and it is live for real: a new event still arrives
    await sendEvents(host.url, [ev('tool.started', id, { tool: 'grep' })]);
    await expect(row(page, id).locator('.activity')).toContainText('grep');
  });

  test('Open posts {sessionId} to the harness door; no Open without one', async ({ page }) => {
    const got: string[] = [];
    const door = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => door.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (door.address() as { port: number }).port;
      host = await startHost(['--open-url', `http://127.0.0.1:${port}/open`]);
      await openBoard(page, host.url);
      const id = uid('open');
      await sendEvents(host.url, [ev('session.opened', id, { cwd: '/srv/open', title: 'Open me' })]);
      await row(page, id).getByRole('button', { name: 'Open Open me' }).click();
      await expect.poll(() => got.map((b) => JSON.parse(b).sessionId)).toContain(id);
    } finally {
      door.close();
    }
    // the shared host has no open door: no Open button
    await openBoard(page);
    await expect(page.locator('#board .act.open')).toHaveCount(0);
  });
});
