// A day with twenty sessions (issue 22): rows grouped by project under
// their worst status, finished rows folded into a count, the filter and its
// "/" key, unseen marks, the plan bars — on a host of its own, so the board
// holds exactly this desk.
import { test, expect, type Page } from '@playwright/test';
import { sendEvents, startHost, type Host } from './host';
import { ev, expectAxeClean, foldBoard, layoutProblems, openBoard } from './ui';

const PROJECTS = ['atlas', 'billing', 'cli', 'docs', 'edge'];

// desk: twenty sessions, four per project. In each project one needs you
// (atlas, cli) or failed (billing) or is working (docs, edge); two finished.
function desk(prefix: string): object[] {
  const out: object[] = [];
  PROJECTS.forEach((p, pi) => {
    for (let k = 0; k < 4; k++) {
      const id = `${prefix}-${p}-${k}`;
      out.push(
        ev('session.opened', id, { cwd: `/home/dev/src/${p}`, title: `${p} task ${k}` }),
        ev('turn.started', id),
        ev('tool.started', id, { tool: 'bash' }),
      );
      if (k >= 2) out.push(ev('turn.ended', id, { outcome: 'completed' }));
      else if (k === 1 && pi % 2 === 0) out.push(ev('approval.requested', id, { tool: 'bash', reason: 'rm -rf build' }));
      else if (k === 1 && p === 'billing') out.push(ev('turn.ended', id, { outcome: 'error' }));
    }
  });
  return out;
}

const group = (page: Page, project: string) =>
  page.locator('#board .group').filter({ has: page.locator('.group-name', { hasText: new RegExp(`^${project}$`) }) });

// This machine is shared; axe over a board of twenty rows takes its time.
test.describe.configure({ timeout: 120_000 });

let host: Host;
test.beforeAll(async () => {
  host = await startHost();
  await sendEvents(host.url, desk('d'));
});
test.afterAll(async () => {
  await host?.stop();
});

test('twenty sessions in five projects: grouped, headed by the worst status, finished rows folded', async ({ page }) => {
  await openBoard(page, host.url);
  await expect(page.locator('#board .group')).toHaveCount(5);
  await expect(page.locator('#board .group .group-name')).toHaveText(PROJECTS);
  await expect(group(page, 'atlas').locator('.group-head')).toHaveAttribute('data-status', 'attention');
  await expect(group(page, 'billing').locator('.group-head')).toHaveAttribute('data-status', 'error');
  await expect(group(page, 'docs').locator('.group-head')).toHaveAttribute('data-status', 'working');
  await expect(group(page, 'billing').locator('.group-worst')).toHaveText(/failed/);
  // Two finished rows per project are folded into "2 done", which unfolds.
  const atlas = group(page, 'atlas');
  await expect(atlas.locator('.row:visible')).toHaveCount(2);
  const fold = atlas.locator('.fold');
  await expect(fold).toHaveText('2 done');
  await expect(fold).toHaveAttribute('aria-expanded', 'false');
  await fold.click();
  await expect(fold).toHaveAttribute('aria-expanded', 'true');
  await expect(atlas.locator('.row:visible')).toHaveCount(4);
  // A patch of the group keeps it unfolded (the viewer's state).
  await sendEvents(host.url, [ev('session.titled', 'd-atlas-0', { title: 'atlas task 0, renamed' })]);
  await expect(atlas.locator('.title').first()).toHaveText('atlas task 0, renamed');
  await expect(atlas.locator('.row:visible')).toHaveCount(4);
  await fold.click();
  await expect(atlas.locator('.row:visible')).toHaveCount(2);
  // A session that finishes moves into its group's fold.
  // (out of sight in the fold, it finished unseen)
  await sendEvents(host.url, [ev('turn.ended', 'd-edge-0', { outcome: 'completed' })]);
  await expect(group(page, 'edge').locator('.fold')).toHaveText('3 done · 1 new');
  await expect(group(page, 'edge').locator('.row:visible')).toHaveCount(1);
  await sendEvents(host.url, [ev('turn.started', 'd-edge-0')]);
  await expect(group(page, 'edge').locator('.fold')).toHaveText('2 done');
});

test('the filter: title or project, "/" focuses it, Escape empties it, nothing found says so', async ({ page }) => {
  await openBoard(page, host.url);
  await page.locator('#tab').focus();
  await page.keyboard.press('/');
  await expect(page.locator('#filter')).toBeFocused();
  await page.keyboard.type('billing');
  await expect(page.locator('#board .group:visible')).toHaveCount(1);
  // the project matches every row of the group, the folded ones shown
  await expect(group(page, 'billing').locator('.row:visible')).toHaveCount(4);
  await page.locator('#filter').fill('task 3');
  await expect(page.locator('#board .row:visible')).toHaveCount(5);
  await page.locator('#filter').fill('cli task 1');
  await expect(page.locator('#board .row:visible')).toHaveCount(1);
  await page.locator('#filter').fill('no such thing');
  await expect(page.locator('#board .row:visible')).toHaveCount(0);
  await expect(page.locator('#no-match')).toBeVisible();
  // The filter holds through a patch.
  await sendEvents(host.url, [ev('session.titled', 'd-docs-0', { title: 'docs task 0 no such thing' })]);
  await expect(page.locator('#board .row:visible')).toHaveCount(1);
  await expect(page.locator('#filter')).toHaveValue('no such thing');
  await page.keyboard.press('Escape');
  await expect(page.locator('#filter')).toHaveValue('');
  await expect(page.locator('#board .row:visible')).toHaveCount(10);
  await expect(page.locator('#sheet')).toBeVisible(); // the first Escape only emptied the filter
  await sendEvents(host.url, [ev('session.titled', 'd-docs-0', { title: 'docs task 0' })]);
});

test('keyboard-complete: "/" opens the folded board at the filter; folds unfold from the keyboard', async ({ page }) => {
  await openBoard(page, host.url);
  await foldBoard(page);
  await page.keyboard.press('/');
  await expect(page.locator('#sheet')).toBeVisible();
  await expect(page.locator('#filter')).toBeFocused();
  await page.keyboard.type('docs');
  const fold = group(page, 'docs').locator('.fold');
  await page.locator('#filter').fill('');
  await fold.focus();
  await page.keyboard.press('Enter');
  await expect(fold).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('Space');
  await expect(fold).toHaveAttribute('aria-expanded', 'false');
});

for (const [width, height] of [
  [1280, 800],
  [390, 844],
] as const) {
  test(`fits at ${width} px and is axe clean`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    // A spinning spinner's box is larger than its line while it turns.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await openBoard(page, host.url);
    await group(page, 'atlas').locator('.fold').click();
    await page.screenshot({ path: `test-results/daily-${width}.png`, fullPage: true });
    expect(await layoutProblems(page, '#board')).toEqual([]);
    await expectAxeClean(page, `the grouped board at ${width} px`);
  });
}

test.describe('unseen marks and alerts', () => {
  let h: Host;
  test.beforeEach(async () => {
    h = await startHost();
  });
  test.afterEach(async () => {
    await h.stop();
  });

  test('a row that finished while the board was folded carries an unseen mark, survives a reload, and is cleared by looking', async ({ page }) => {
    const id = 'unseen-a';
    await sendEvents(h.url, [ev('session.opened', id, { cwd: '/srv/unseen', title: 'Finish me' }), ev('turn.started', id)]);
    await openBoard(page, h.url);
    await foldBoard(page);
    await sendEvents(h.url, [ev('turn.ended', id, { outcome: 'completed' })]);
    const r = page.locator(`#board .row[data-session-id="${id}"]`);
    await expect(r).toHaveAttribute('data-status', 'done');
    await expect(r).toHaveAttribute('data-unseen', '');
    await expect(page.locator('#tab .unseen-count')).toHaveText('1 new');
    await expect(page.locator('#tab .tab-name')).toHaveText(/1 done, 1 unseen$/);
    // this browser's storage keeps it through a reload (of the pop-out's own
    // window, which starts folded: a tab's board opens unfolded, and looks)
    await page.goto(h.url + '/agents-notch/?popout=1');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(page.locator('#sheet')).toBeHidden();
    await expect(r).toHaveAttribute('data-unseen', '');
    await expect(page.locator('#tab .unseen-count')).toHaveText('1 new');
    // looking: the board unfolded with the row in view, the page in focus
    await page.goto(h.url + '/agents-notch/');
    await expect(r).toBeVisible();
    await expect(r).not.toHaveAttribute('data-unseen', '');
    await expect(page.locator('#tab .unseen-count')).toHaveCount(0);
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(r).toHaveAttribute('data-status', 'done');
    await expect(r).not.toHaveAttribute('data-unseen', '');
  });

  test('a row that finishes in view gets no mark; another browser keeps its own marks', async ({ page, browser }) => {
    const id = 'unseen-b';
    await sendEvents(h.url, [ev('session.opened', id, { cwd: '/srv/seen', title: 'Watched' }), ev('turn.started', id)]);
    const other = await browser.newContext();
    const away = await other.newPage();
    await openBoard(away, h.url);
    await foldBoard(away); // not looking
    await openBoard(page, h.url);
    await sendEvents(h.url, [ev('turn.ended', id, { outcome: 'error' })]);
    const r = page.locator(`#board .row[data-session-id="${id}"]`);
    await expect(r).toHaveAttribute('data-status', 'error');
    await expect(away.locator(`#board .row[data-session-id="${id}"]`)).toHaveAttribute('data-unseen', '');
    await expect(r).not.toHaveAttribute('data-unseen', '');
    await other.close();
  });

  test('alerts sound on the rising edge only, a needs-you chime unlike done, never with the focus, muted from the pane', async ({ page, context }) => {
    await context.addInitScript(() => {
      const w = window as any;
      w.__tones = [];
      w.__focus = false;
      Document.prototype.hasFocus = () => w.__focus;
      const make = AudioContext.prototype.createOscillator;
      AudioContext.prototype.createOscillator = function () {
        const o = make.call(this);
        const start = o.start.bind(o);
        o.start = (t?: number) => {
          w.__tones.push(o.frequency.value);
          start(t);
        };
        return o;
      };
    });
    const ids = ['alert-a', 'alert-b', 'alert-sub'];
    await sendEvents(h.url, [
      ev('session.opened', ids[0], { cwd: '/srv/alerts', title: 'A' }),
      ev('turn.started', ids[0]),
      ev('session.opened', ids[1], { cwd: '/srv/alerts', title: 'B' }),
      ev('turn.started', ids[1]),
      ev('session.opened', ids[2], { cwd: '/srv/alerts', title: 'Sub', origin: 'subagent', parent: ids[0] }),
      ev('turn.started', ids[2]),
    ]);
    await page.goto(h.url + '/agents-notch/');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await page.mouse.click(5, 300); // a gesture: the page may start audio
    const tones = () => page.evaluate(() => (window as any).__tones as number[]);
    const row = (id: string) => page.locator(`#board .row[data-session-id="${id}"]`);

    // a subagent asking: no alert
    await sendEvents(h.url, [ev('approval.requested', ids[2], { tool: 'bash' })]);
    await expect(row(ids[2])).toHaveAttribute('data-status', 'attention');
    // A asks: the rising chime
    await sendEvents(h.url, [ev('approval.requested', ids[0], { tool: 'bash' })]);
    await expect.poll(tones).toEqual([660, 990]);
    // (the host's own time of the alert, on this machine's clock)
    const firstAt = Number(await page.locator('#board-alert').getAttribute('data-seq'));
    // B finishes within 5 s: dropped (checked when this machine is quick
    // enough; host/alert_test.go checks it on a clock)
    await sendEvents(h.url, [ev('turn.ended', ids[1], { outcome: 'completed' })]);
    await expect(row(ids[1])).toHaveAttribute('data-status', 'done');
    if (Date.now() - firstAt < 4_000) {
      await page.waitForTimeout(600);
      expect(await tones()).toEqual([660, 990]);
    }
    // past the 5 s, B finishing again is done's one note
    await expect
      .poll(
        async () => {
          await sendEvents(h.url, [ev('turn.started', ids[1])]);
          await expect(row(ids[1])).toHaveAttribute('data-status', 'working');
          await sendEvents(h.url, [ev('turn.ended', ids[1], { outcome: 'completed' })]);
          await expect(row(ids[1])).toHaveAttribute('data-status', 'done');
          return (await tones()).length;
        },
        { timeout: 20_000, intervals: [1_000] },
      )
      .toBeGreaterThanOrEqual(3);
    expect((await tones())[2]).toBe(784);
    const heard = (await tones()).length;
    const cycle = async () => {
      await sendEvents(h.url, [ev('approval.resolved', ids[0], { outcome: 'allowed-once' })]);
      await expect(row(ids[0])).toHaveAttribute('data-status', 'working');
      await page.waitForTimeout(5_100); // past the host's 5 s gap, so only the page decides
      await sendEvents(h.url, [ev('approval.requested', ids[0], { tool: 'bash' })]);
      await expect(row(ids[0])).toHaveAttribute('data-status', 'attention');
      await page.waitForTimeout(600);
    };
    // with the focus on the board: silence
    await page.evaluate(() => ((window as any).__focus = true));
    await cycle();
    expect(await tones()).toHaveLength(heard);
    // muted in the pane (this browser's preference): silence
    await page.evaluate(() => ((window as any).__focus = false));
    const pane = await context.newPage();
    await pane.goto(h.url + '/agents-notch/pane');
    await expect(pane.locator('html')).toHaveAttribute('data-live', 'live');
    const box = pane.getByLabel('Sounds with alerts');
    await expect(box).toBeChecked();
    await box.uncheck();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('notch:sounds'))).toBe('off');
    await cycle();
    expect(await tones()).toHaveLength(heard);
    await pane.reload();
    await expect(pane.getByLabel('Sounds with alerts')).not.toBeChecked();
  });
});

test.describe('plan usage from the statusline', () => {
  let h: Host;
  test.beforeAll(async () => {
    h = await startHost();
  });
  test.afterAll(async () => {
    await h.stop();
  });

  test('the plan bars and a context bar against the window Claude Code reports', async ({ page }) => {
    const id = 'plan-a';
    // A Claude Code session (its hook names the agent): the statusline is
    // Claude Code's, and the row's words are its own agent's.
    const hook = await fetch(h.url + '/agents-notch/hooks/claude-code', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: id, cwd: '/srv/plan', hook_event_name: 'SessionStart', source: 'startup' }),
    });
    expect(hook.status).toBe(200);
    await sendEvents(h.url, [
      ev('turn.started', id),
      ev('context.tokens', id, { tokens: 84000 }),
    ]);
    await openBoard(page, h.url);
    const r = page.locator(`#board .row[data-session-id="${id}"]`);
    // No report yet: no plan, and without a budget the bare count.
    await expect(page.locator('#plan')).toHaveCount(0);
    await expect(r.locator('.ctx-tokens')).toHaveText(/84k/);
    // What notch-web statusline posts.
    const post = (body: object) =>
      fetch(h.url + '/agents-notch/statusline', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const resets = Math.floor(Date.now() / 1000) + 2 * 3600;
    expect((await post({ session: id, fiveHour: { usedPct: 23.5, resetsAt: resets }, costUsd: 0.42, contextWindow: { size: 200000, usedPct: 42 } })).status).toBe(200);
    const plan = page.locator('#plan');
    await expect(plan).toBeVisible();
    const five = plan.getByRole('meter', { name: 'Claude Code 5-hour window used' });
    await expect(five).toHaveAttribute('aria-valuenow', '24');
    await expect(plan.locator('.plan-win').first()).toContainText('24%');
    await expect(plan.locator('.plan-reset')).toHaveText(/^resets \d\d:\d\d/);
    // the 7-day window was not reported: no figure, never a guess
    await expect(plan.locator('.plan-win')).toHaveCount(1);
    await expect(plan.locator('.plan-asof')).toHaveText(/ago|as of now/);
    // the row's bar runs against the window Claude Code reports
    const bar = r.getByRole('meter', { name: 'context used' });
    await expect(bar).toHaveAttribute('aria-valuenow', '42');
    await expect(bar).toHaveAttribute('title', '84k of 200k tokens (the window Claude Code reports)');
    // refused: a session not on the board, an unknown field
    expect((await post({ session: 'nobody' })).status).toBe(404);
    expect((await post({ session: id, token: 'x' })).status).toBe(400);
    // state.json carries none of it: its budget stays the row's (none)
    const doc = await (await fetch(h.url + '/agents-notch/state')).json();
    expect(doc.context.budget).toBeNull();
    expect(JSON.stringify(doc)).not.toContain('fiveHour');
    await expectAxeClean(page, 'the plan bars');
  });
});
