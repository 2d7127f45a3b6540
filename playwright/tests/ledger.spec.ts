// The ledger (host/ledger, issue 52): the board's compact strip and the
// ledger page, at 1280 and 390 px, with a fresh window (Claude Code's
// statusline), a stale one (a Codex rollout read 20 minutes after its
// figure) and one past its reset (shown "reset", never its old number).
import { test, expect, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHost, type Host } from './host';
import { expectAxeClean, layoutProblems, openBoard } from './ui';

// This machine is shared; axe takes its time.
test.describe.configure({ timeout: 240_000 });

let h: Host;
let dir: string;

const post = (p: string, body: object) =>
  fetch(h.url + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test.beforeAll(async () => {
  h = await startHost();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-ledger-'));
  // Claude Code: a session, and its statusline's windows: the 5-hour one
  // fresh, the 7-day one resetting 4 s from now.
  expect((await post('/agents-notch/hooks/claude-code', { session_id: 'led-cc', cwd: '/srv/atlas', hook_event_name: 'SessionStart', source: 'startup' })).status).toBe(200);
  // A turn, as a session has: its hooks name the agent to the history.
  expect((await post('/agents-notch/hooks/claude-code', { session_id: 'led-cc', cwd: '/srv/atlas', hook_event_name: 'UserPromptSubmit', prompt: 'go' })).status).toBe(200);
  expect((await post('/agents-notch/hooks/claude-code', { session_id: 'led-cc', cwd: '/srv/atlas', hook_event_name: 'Stop', stop_hook_active: false })).status).toBe(200);
  const now = Math.floor(Date.now() / 1000);
  expect(
    (await post('/agents-notch/statusline', {
      session: 'led-cc',
      fiveHour: { usedPct: 63, resetsAt: now + 2 * 3600 },
      sevenDay: { usedPct: 91, resetsAt: now + 4 },
      costUsd: 1.25,
    })).status,
  ).toBe(200);
  // Codex: its rollout's token_count as Codex 0.169 writes it, 20 minutes
  // old: past its cadence, so greyed with its age.
  const rollout = path.join(dir, 'rollout-2026-12-07T10-00-00-led.jsonl');
  seededAt = Date.now();
  const asOf = new Date(seededAt - 20 * 60 * 1000).toISOString();
  fs.writeFileSync(
    rollout,
    JSON.stringify({
      timestamp: asOf,
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: 5200, cached_input_tokens: 1200, output_tokens: 300 } },
        rate_limits: { limit_id: 'codex', primary: { used_percent: 42, window_minutes: 300, resets_at: now + 3 * 3600 }, secondary: null },
      },
    }) + '\n',
  );
  for (const e of ['SessionStart', 'Stop']) {
    const body = { session_id: 'led-cx', turn_id: '1', transcript_path: rollout, cwd: '/srv/billing', hook_event_name: e, source: 'startup', stop_hook_active: false };
    expect((await post('/agents-notch/hooks/codex', body)).status).toBe(200);
  }
});

// seededAt is when the seed ran: Codex's reading is 20 minutes before it.
let seededAt = 0;

test.afterAll(async () => {
  await h.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function strip(page: Page) {
  const plan = page.locator('#plan');
  await expect(plan).toBeVisible();
  const five = plan.locator('.plan-win').filter({ hasText: '5-hour' });
  // Claude Code's 5-hour window, fresh, with its reset and age
  const cc = five.filter({ has: page.getByRole('meter', { name: 'Claude Code 5-hour window used' }) });
  await expect(cc).toHaveAttribute('data-state', 'fresh');
  await expect(cc).toContainText('63%');
  await expect(cc.locator('.plan-reset')).toHaveText(/^resets \d\d:\d\d/);
  await expect(cc.locator('.plan-asof')).toHaveText(/ago|as of now/);
  // Codex's window: stale, greyed, 20 minutes old
  const cx = five.filter({ has: page.getByRole('meter', { name: 'Codex 5-hour window used' }) });
  await expect(cx).toHaveAttribute('data-state', 'stale');
  await expect(cx.locator('.plan-asof')).toHaveText(/^(19|[2-9]\d)m ago$/);
  // the 7-day window past its reset: "reset", its 91 % never shown
  const week = plan.locator('.plan-win').filter({ hasText: '7-day' });
  await expect(week).toHaveAttribute('data-state', 'reset', { timeout: 15_000 });
  await expect(week).toContainText('reset');
  await expect(week).not.toContainText('91');
}

for (const width of [1280, 390]) {
  test(`the strip and the page at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 800 ? 800 : 844 });
    await openBoard(page, h.url);
    await strip(page);
    expect(await layoutProblems(page, '#plan')).toEqual([]);
    await page.screenshot({ path: `test-results/ledger-strip-${width}.png` });
    await expectAxeClean(page, `the ledger strip at ${width}`);

    await page.goto(h.url + '/agents-notch/ledger');
    const live = page.locator('#ledger-live');
    await expect(live).toBeVisible();
    const rows = live.locator('.lg-table').first().locator('tbody tr');
    await expect(rows).toHaveCount(3);
    await expect(rows.filter({ hasText: 'Codex' })).toHaveAttribute('data-state', 'stale');
    await expect(rows.filter({ hasText: 'Codex' })).toContainText('no fresh reading');
    await expect(rows.filter({ hasText: '7-day' })).toHaveAttribute('data-state', 'reset');
    await expect(rows.filter({ hasText: '7-day' })).not.toContainText('91');
    // what each agent tells: Gemini CLI does not tell its limits
    await expect(live.locator('.lg-agents')).toContainText('Gemini CLI: this agent does not tell its limits');
    // cost where reported (Claude Code's), tokens only for Codex: cost empty
    const byAgent = live.locator('#lg-by-agent');
    await expect(byAgent.locator('tr', { hasText: 'Claude Code' })).toContainText('$1.25');
    const codex = byAgent.locator('tr', { hasText: 'Codex' });
    await expect(codex).toContainText('4,000');
    await expect(codex).toContainText('not reported');
    expect(await layoutProblems(page, 'main')).toEqual([]);
    await page.screenshot({ path: `test-results/ledger-page-${width}.png`, fullPage: true });
    await expectAxeClean(page, `the ledger page at ${width}`);
  });
}

// The History page's day charts gain tokens and cost per agent (issue 52):
// Codex told tokens (its rollout), no cost; Claude Code its cost (the
// statusline), no tokens — each is in the chart of what it told, nothing
// priced, nothing guessed.
for (const width of [1280, 390]) {
  test(`the History page's tokens and cost by agent at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 800 ? 800 : 844 });
    await page.goto(h.url + '/agents-notch/history');
    const sec = page.locator('#hist-agents');
    const tokens = sec.locator('figure[data-metric="tokens-agent"]');
    const cost = sec.locator('figure[data-metric="cost-agent"]');
    // the history writes in batches: the page's live patch brings them
    await expect(tokens.locator('.ba-legend')).toContainText(/Codex\s*6k/, { timeout: 20_000 });
    await expect(tokens.locator('.ba-legend')).not.toContainText('Claude Code');
    await expect(cost.locator('.ba-legend')).toContainText(/Claude Code\s*\$1\.25/);
    await expect(cost.locator('.ba-legend')).not.toContainText('Codex');
    await expect(tokens.locator('rect.bar')).toHaveCount(1);
    await expect(cost.locator('rect.bar')).toHaveCount(1);
    // the table behind the charts: each agent's own measure, on the day it
    // was told (Codex's reading is 20 minutes old: yesterday's, in a
    // run just after midnight)
    await sec.locator('summary').click();
    const head = sec.locator('thead th');
    await expect(head).toHaveText(['Day', 'Codex, tokens', 'Claude Code, cost']);
    const rows = sec.locator('tbody tr');
    await expect(rows.filter({ hasText: '6k' })).toHaveCount(1);
    await expect(rows.filter({ hasText: '$1.25' })).toHaveCount(1);
    if (new Date(seededAt - 20 * 60 * 1000).toDateString() === new Date().toDateString()) {
      await expect(rows.last().locator('td')).toHaveText(['6k', '$1.25']); // one day: today's row holds both
    }
    await sec.locator('summary').click();
    expect(await layoutProblems(page, '#hist-agents .ba-grid')).toEqual([]); // the table scrolls, as the bars' does
    await sec.scrollIntoViewIfNeeded();
    await sec.screenshot({ path: `test-results/history-by-agent-${width}.png` });
    await expectAxeClean(page, `the History page's charts by agent at ${width}`);
  });
}
