// The lane of who waits (issue 51): every row that needs you, on every
// machine, oldest wait first, above the groups, with its wait, machine,
// project, agent and what it asks, and its card, which answers there; the
// keys walk it without the mouse. A hub and a machine joined to it, each a
// real notch-web; Claude Code's held approvals give the cards.
import { test, expect, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HUB_BIN } from '../playwright.config';
import { postJSON, sendEvents, startHost, type Host } from './host';
import { ev, expectAxeClean, openBoard, row } from './ui';

const shots = path.join(__dirname, '..', 'test-results', 'lane');

function hubPort(home: string): number {
  return JSON.parse(fs.readFileSync(path.join(home, 'state', 'agents-notch', 'mesh', 'hub.json'), 'utf8')).port;
}

function pair(hub: Host): string {
  const r = spawnSync(HUB_BIN, ['pair', '--dsh-home', hub.home, '--address', `127.0.0.1:${hubPort(hub.home)}`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

/**
 * ask holds a Claude Code PermissionRequest on host, once the row waits
 * (its answer, the held response, is not awaited: it is wrapped).
 */
async function ask(host: Host, session: string, cwd: string, command: string, prompt: string): Promise<{ res: Promise<Response> }> {
  const hook = (event: string, extra: Record<string, unknown>) =>
    postJSON(host.url, '/agents-notch/hooks/claude-code', { session_id: session, cwd, hook_event_name: event, ...extra });
  expect((await hook('UserPromptSubmit', { prompt })).status).toBe(200);
  expect((await hook('PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: `toolu_${session}` })).status).toBe(200);
  return { res: hook('PermissionRequest', { tool_name: 'Bash', tool_input: { command, description: prompt } }) };
}

const laneOrder = (page: Page) => page.locator('#lane .lane-item').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.sessionId));

test.describe('the lane on a hub', () => {
  let hub: Host, alpha: Host;
  const held: { res: Promise<Response> }[] = [];
  const min = 60_000;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    hub = await startHost(['--hub', '--hub-addr', '127.0.0.1:0', '--machine', 'desk', '--approval-hold', '10m'], undefined, {}, HUB_BIN);
    alpha = await startHost(['--join', pair(hub), '--machine', 'build-box', '--approval-hold', '10m']);
    const now = Date.now();
    // Waits that began a while ago (a harness's events carry their time).
    await sendEvents(alpha.url, [
      ev('session.opened', 'docs', { cwd: '/src/handbook', title: 'Rewrite the onboarding guide', at: now - 20 * min }),
      ev('turn.started', 'docs', { at: now - 20 * min }),
      ev('approval.requested', 'docs', { tool: 'publish', reason: 'push the guide to the wiki', at: now - 14 * min }),
    ]);
    await sendEvents(hub.url, [
      ev('session.opened', 'lead', { cwd: '/src/parser', title: 'Port the parser to Go', at: now - 30 * min }),
      ev('turn.started', 'lead', { at: now - 30 * min }),
      ev('session.opened', 'lead-sub', { cwd: '/src/parser', title: 'explore the tests', origin: 'subagent', parent: 'lead', at: now - 12 * min }),
      ev('turn.started', 'lead-sub', { at: now - 12 * min }),
      ev('approval.requested', 'lead-sub', { tool: 'Read', reason: '~/.ssh/config', at: now - 9 * min }),
      ev('session.opened', 'tidy', { cwd: '/src/web', title: 'Tidy the CSS', at: now - 40 * min }),
      ev('turn.started', 'tidy', { at: now - 40 * min }),
    ]);
    // Claude Code asks now: the cards.
    held.push(await ask(hub, 'auth', '/src/api', 'rm -rf build/', 'Refactor the auth middleware'));
    held.push(await ask(alpha, 'deploy', '/src/webshop', 'make deploy', 'Ship the checkout fix'));
    held.push(await ask(hub, 'deps', '/src/api', 'go get -u ./...', 'Bump the dependencies'));
  });

  test.afterAll(async () => {
    for (const h of [alpha, hub]) await h?.stop();
  });

  for (const [w, h] of [
    [1920, 1080],
    [1280, 800],
    [390, 844],
  ]) {
    test(`five waiting rows from two machines, oldest first, at ${w} px`, async ({ page }) => {
      test.setTimeout(420_000); // an axe scan, two hosts, on a busy machine (minutes at a load of 40)
      await page.setViewportSize({ width: w, height: h });
      await openBoard(page, hub.url);
      const lane = page.locator('#lane');
      await expect(lane.locator('.lane-item')).toHaveCount(5);
      expect(await laneOrder(page)).toEqual(['build-box/docs', 'lead-sub', 'auth', 'build-box/deploy', 'deps']);
      await expect(lane.locator('.lane-count')).toContainText('5');
      const first = lane.locator('.lane-item').first();
      await expect(first.locator('time.wait')).toHaveText(/^1\dm$/); // 14m when it began: the clock moves while the tests run
      await expect(first.locator('.lane-machine')).toContainText('build-box');
      await expect(first.locator('.lane-project')).toContainText('handbook');
      await expect(first.locator('.lane-ask')).toContainText('publish push the guide to the wiki');
      // a subagent's wait is its parent's, and the parent row says so
      const sub = lane.locator('.lane-item[data-session-id="lead-sub"]');
      await expect(sub.locator('.lane-name')).toHaveText('Port the parser to Go');
      await expect(sub.locator('.lane-sub')).toContainText('subagent explore the tests');
      await expect(row(page, 'lead').locator('.blocked')).toContainText(/its subagent waits on you (9|1\d)m/);
      // another machine's card answers in the lane, with its agent named
      const remote = lane.locator('.lane-item[data-session-id="build-box/deploy"]');
      await expect(remote.locator('.agent')).toHaveAttribute('title', 'Claude Code');
      await expect(remote.locator('.card[data-state="waiting"] :is(.card-detail, .card-command)')).toHaveText('make deploy');
      // the cards are not drawn twice: none under the rows
      await expect(page.locator('#board .rows-scroll .card')).toHaveCount(0);
      // the groups keep their order (the order sessions opened)
      const rows = await page.locator('#board .rows-scroll .row').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.sessionId));
      expect(rows.indexOf('lead')).toBeLessThan(rows.indexOf('tidy'));
      // the title says how long the oldest has waited
      await expect(page).toHaveTitle(/^\(5\) needs you · 1\dm · notch$/);
      // nothing overflows the page sideways
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(w);
      fs.mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, `lane-${w}.png`), fullPage: w !== 390 });
      await expectAxeClean(page, `the lane at ${w} px`);
    });
  }

  test('the folded tab says the oldest wait', async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await openBoard(page, hub.url);
    await page.locator('#tab').click();
    await expect(page.locator('#tab .island-wait')).toHaveText(/^\d+m$/);
    await expect(page.locator('#tab .island-name')).toHaveText('Rewrite the onboarding guide');
  });
});

test('the keyboard walks three waiting cards and answers each, without the mouse', async ({ page }) => {
  test.setTimeout(240_000);
  const host = await startHost(['--approval-hold', '5m']);
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openBoard(page, host.url);
    const held = [
      await ask(host, 'one', '/src/a', 'rm -rf build/', 'First'),
      await ask(host, 'two', '/src/b', 'make clean', 'Second'),
      await ask(host, 'three', '/src/c', 'git push', 'Third'),
    ];
    await expect(page.locator('#lane .lane-item')).toHaveCount(3);
    await page.locator('body').focus();
    // ? shows the keys; Esc closes the sheet
    await page.keyboard.press('?');
    const help = page.locator('#keys-help');
    await expect(help).toBeVisible();
    await expect(help).toContainText('the next / the previous session waiting on you');
    await expectAxeClean(page, 'the keys sheet');
    await page.keyboard.press('Escape');
    await expect(help).toBeHidden();
    // j and k walk the lane's heads, oldest first, and round
    await page.keyboard.press('j');
    const head = (id: string) => page.locator(`#lane .lane-item[data-session-id="${id}"] .lane-go`);
    await expect(head('one')).toBeFocused();
    await page.keyboard.press('j');
    await expect(head('two')).toBeFocused();
    await page.keyboard.press('k');
    await expect(head('one')).toBeFocused();
    // o opens its card on its first answer; Esc folds it back to the head
    await page.keyboard.press('o');
    const allow = (id: string) => page.locator(`#lane .card[data-session="${id}"] .card-btn.allow`);
    await expect(allow('one')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(head('one')).toBeFocused();
    await expect(head('one')).toHaveAttribute('aria-expanded', 'false');
    await expect(page.locator('#lane .card[data-session="one"]')).toBeHidden();
    // a key typed in a field is the field's
    await page.keyboard.press('/');
    await expect(page.locator('#filter')).toBeFocused();
    await page.keyboard.type('jk');
    await expect(page.locator('#filter')).toHaveValue('jk');
    await page.keyboard.press('Escape');
    await expect(page.locator('#filter')).toHaveValue('');
    // o on the head: the card again; Enter sends its focused answer, and the next card comes
    await head('one').focus();
    await page.keyboard.press('o');
    await expect(allow('one')).toBeFocused();
    await page.keyboard.press('Enter');
    expect((await held[0].res).status).toBe(200);
    await expect(allow('two')).toBeFocused();
    await page.keyboard.press('Enter');
    expect((await held[1].res).status).toBe(200);
    await expect(allow('three')).toBeFocused();
    await page.keyboard.press('Enter');
    const res = await held[2].res;
    expect(await res.json()).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    await expect(page.locator('#lane')).toHaveCount(0);
    for (const id of ['one', 'two', 'three']) await expect(row(page, id)).toHaveAttribute('data-status', 'working');
  } finally {
    await host.stop();
  }
});

test('on a phone the lane’s cards answer inline, and answering one brings the next', async ({ page }) => {
  test.setTimeout(120_000);
  const host = await startHost(['--approval-hold', '5m']);
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await openBoard(page, host.url);
    const held = [await ask(host, 'p1', '/src/a', 'rm -rf build/', 'First'), await ask(host, 'p2', '/src/b', 'make clean', 'Second')];
    const lane = page.locator('#lane');
    await expect(lane.locator('.lane-item')).toHaveCount(2);
    await lane.locator('.card[data-session="p1"]').getByRole('button', { name: 'Allow once' }).click();
    expect((await held[0].res).status).toBe(200);
    await expect(lane.locator('.lane-item')).toHaveCount(1);
    const next = lane.locator('.card[data-session="p2"] .card-btn.allow');
    await expect(next).toBeFocused();
    await expect(next).toBeInViewport();
    await next.click();
    expect((await held[1].res).status).toBe(200);
    await expect(lane).toHaveCount(0);
  } finally {
    await host.stop();
  }
});
