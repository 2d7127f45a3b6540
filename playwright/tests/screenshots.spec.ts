// The README's screenshots, taken only by `make screenshots`
// (NOTCH_SCREENSHOTS=1): the board folded and open and the Settings pane, at
// 1280 px and at a phone's 390 px, the History page, and the dashboard a browser tab makes of
// the board at 1920 px, written to docs/screenshots/. A normal test run
// skips this file, so it never touches the tree.
import { test, expect, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Host } from './host';
import { postJSON, startHost } from './host';
import { seedHistory } from './history-seed';
import { DESK_PATCH, openBoard, seedDay, seedDesk, startHostWithPatch } from './ui';

const OUT = path.join(__dirname, '..', '..', 'docs', 'screenshots');

test.skip(!process.env.NOTCH_SCREENSHOTS, 'README screenshots: run `make screenshots`');

let host: Host;
test.beforeAll(async () => {
  // A long hold: the approval card below waits until its shot is taken.
  host = await startHostWithPatch(DESK_PATCH, ['--approval-hold', '5m']);
  await seedDesk(host.url);
  fs.mkdirSync(OUT, { recursive: true });
});
test.afterAll(async () => {
  await host?.stop();
});

// shot saves the page, or its top centre (width × height) when given.
const shot = (page: Page, name: string, opts: { fullPage?: boolean; width?: number; height?: number } = {}) => {
  const vw = page.viewportSize()!.width;
  const w = Math.min(opts.width ?? vw, vw);
  return page.screenshot({
    path: path.join(OUT, name),
    fullPage: opts.fullPage,
    clip: opts.height ? { x: Math.round((vw - w) / 2), y: 0, width: w, height: opts.height } : undefined,
  });
};

for (const [width, height] of [
  [1920, 1080],
  [1280, 640],
  [390, 844],
] as const) {
  test.describe(`${width} px`, () => {
    test.use({ viewport: { width, height } });

    test('the board, folded: the tab with its legend', async ({ page }) => {
      test.skip(width > 1280, 'the folded tab is the same at any desktop width');
      await openBoard(page, host.url);
      await page.keyboard.press('Tab');
      await expect(page.locator('#tab')).toBeFocused();
      await page.keyboard.press('Enter'); // folds it; focus shows the legend
      await expect(page.locator('#tab .legend')).toBeVisible();
      await shot(page, `board-${width}-folded.png`, { width: 640, height: 170 });
    });

    test('the board, open', async ({ page }) => {
      await openBoard(page, host.url);
      await expect(page.locator('#board .row')).toHaveCount(7);
      await page.mouse.move(width - 5, height - 5);
      await shot(page, `board-${width}-open.png`);
    });

    test('a day with twenty sessions: grouped, folded, the plan', async ({ page }) => {
      test.setTimeout(120_000);
      const day = await startHost();
      try {
        await seedDay(day.url);
        // A day of twenty sessions is read with the list at its tallest
        // (maxRows 10, a twenty-session user's setting).
        expect((await postJSON(day.url, '/agents-notch/settings', { maxRows: 10 })).status).toBe(200);
        await page.goto(day.url + '/agents-notch/');
        await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
        await page.evaluate(() => localStorage.clear());
        await openBoard(page, day.url);
        await expect(page.locator('#plan')).toBeVisible();
        await expect(page.locator('#board .group')).toHaveCount(5);
        await page.mouse.move(width - 5, height - 5);
        await shot(page, `day-${width}.png`);
      } finally {
        await day.stop();
      }
    });

    test('a row unfolded: its short history, and Go to terminal', async ({ page }) => {
      test.setTimeout(120_000);
      const h = await startHost();
      try {
        await seedTerminals(h.url);
        // The list at its tallest, as the day's shot: the rows under the
        // unfolded one stay in sight.
        expect((await postJSON(h.url, '/agents-notch/settings', { maxRows: 10 })).status).toBe(200);
        await openBoard(page, h.url);
        const r = page.locator('#board .row[data-session-id="shot-hist"]');
        await expect(r.locator('.act.term')).toBeVisible();
        await r.locator('.hist-toggle').click();
        await expect(page.locator('.hist-item .hist-list li').first()).toContainText('tool ended');
        await page.mouse.move(width - 5, height - 5);
        await shot(page, `history-${width}.png`);
      } finally {
        await h.stop();
      }
    });

    test('the History page: the day in pictures and the sessions', async ({ page }) => {
      test.skip(width > 1280, 'the History page is a column at any desktop width');
      test.setTimeout(120_000);
      const h = await startHost();
      try {
        await seedHistory(h.url);
        await page.goto(h.url + '/agents-notch/history');
        await expect(page.locator('svg.tl')).toBeVisible();
        await page.locator('#hist-list details.hs').filter({ hasText: 'Fix the flaky upload test' }).locator('summary').click();
        await page.mouse.move(width - 5, 5);
        // The top of the page: the numbers, the day, the bars, the first sessions.
        await shot(page, `history-page-${width}.png`, { fullPage: true, height: width > 500 ? 1500 : 2300 });
      } finally {
        await h.stop();
      }
    });

    test('the Settings pane', async ({ page }) => {
      test.skip(width > 1280, 'the pane is a column at any desktop width');
      await page.goto(host.url + '/agents-notch/pane');
      await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
      // the whole pane at a desk; a phone's first screen
      await shot(page, `pane-${width}.png`, { fullPage: width > 500 });
    });
  });
}

// After the desk's own shots (they count its rows): an agent asking.
for (const [width, height] of [
  [1920, 1080],
  [1280, 640],
  [390, 844],
] as const) {
  test.describe(`${width} px, asking`, () => {
    test.use({ viewport: { width, height } });

    test('the board, an agent asking', async ({ page }) => {
      test.slow(); // a private host's first page under load
      await askFromClaude(host);
      await openBoard(page, host.url);
      const card = page.locator('.card[data-state="waiting"]');
      await expect(card).toBeVisible();
      await card.scrollIntoViewIfNeeded();
      await page.mouse.move(width - 5, height - 5);
      await shot(page, `board-${width}-approval.png`);
    });
  });
}

/** askFromClaude puts a Claude Code session on the board whose Bash call
 * waits for permission, as Claude Code's own http hooks post it (the
 * PermissionRequest is held: it is left to the host's stop). */
async function askFromClaude(h: Host): Promise<void> {
  if (asked) return;
  asked = true;
  const hook = (event: string, extra: Record<string, unknown> = {}) => ({
    session_id: 'shot-approval',
    transcript_path: '/home/dev/.claude/projects/-home-dev-src-argon/shot-approval.jsonl',
    cwd: '/home/dev/src/argon',
    hook_event_name: event,
    ...extra,
  });
  const input = { command: 'rm -rf build/ && make release', description: 'Clean the build and cut the release' };
  const post = (b: object) => fetch(h.url + '/agents-notch/hooks/claude-code', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
  await post(hook('UserPromptSubmit', { prompt: 'Cut the 0.9 release' }));
  await post(hook('PreToolUse', { tool_name: 'Bash', tool_input: input, tool_use_id: 'toolu_shot' }));
  void post(
    hook('PermissionRequest', {
      tool_name: 'Bash',
      tool_input: input,
      permission_suggestions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make release' }], behavior: 'allow', destination: 'localSettings' }],
    }),
  ).catch(() => {});
}
let asked = false;

/** seedTerminals puts three Claude Code sessions on a host, as the hook
 * command relays them: one in tmux (its history the shot's), one in
 * WezTerm, one with no terminal known. */
async function seedTerminals(base: string): Promise<void> {
  const post = (id: string, event: string, extra: Record<string, unknown> = {}, where = '') =>
    fetch(base + '/agents-notch/hooks/claude-code', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(where ? { 'Notch-Where': where } : {}) },
      body: JSON.stringify({ session_id: id, cwd: '/src/argon', hook_event_name: event, ...extra }),
    });
  const tool = (id: string, name: string, command: string, ok = true) => [
    ['PreToolUse', { tool_name: name, tool_input: { command }, tool_use_id: `t-${id}-${command.length}` }],
    [ok ? 'PostToolUse' : 'PostToolUseFailure', { tool_name: name, tool_input: { command }, tool_use_id: `t-${id}-${command.length}`, ...(ok ? { tool_response: {} } : { error: 'exit 1' }) }],
  ] as const;
  const sessions: Array<[string, string, string]> = [
    ['shot-hist', 'Make the release build reproducible', 'tmux-pane=%253&tmux-socket=%2Ftmp%2Ftmux-1000%2Fdefault&term=tmux'],
    ['shot-wez', 'Port the loader to the new API', 'term=WezTerm&wezterm-pane=7'],
    ['shot-none', 'Write the 0.9 release notes', ''],
  ];
  for (const [id, prompt, where] of sessions) {
    await post(id, 'SessionStart', { source: 'startup' }, where);
    await post(id, 'UserPromptSubmit', { prompt });
  }
  for (const [event, extra] of [
    ...tool('shot-hist', 'Bash', 'go build ./...'),
    ...tool('shot-hist', 'Bash', 'go test ./cmd/...', false),
    ...tool('shot-hist', 'Edit', 'cmd/notch-web/version.go'),
    ...tool('shot-hist', 'Bash', 'make release'),
  ]) {
    await post('shot-hist', event, extra);
  }
  await post('shot-wez', 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: 'loader.go' }, tool_use_id: 't-wez' });
}
