// Approvals from the board (issue 20): a Claude Code PermissionRequest,
// posted as Claude Code's own http hook posts it, is held by the host while
// its card waits on the board; the keyboard answers it and the held request
// gets Claude Code's decision; an answer in the terminal turns the card into
// "answered in the terminal". Its own host: cards are the host's state.
import { test, expect } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { postJSON, startHost, type Host } from './host';
import AxeBuilder from '@axe-core/playwright';
import { openBoard, row } from './ui';

const SESSION = '4a7c2e19-8b3d-4f6a-9e05-1c2d3e4f5a6b';

let host: Host;
let transcript: string;

test.beforeAll(async () => {
  // A long hold: the test, not the clock, decides when a card is answered.
  host = await startHost(['--approval-hold', '5m']);
  transcript = path.join(host.home, 'transcript.jsonl');
  fs.writeFileSync(transcript, '');
});
test.afterAll(async () => {
  await host?.stop();
});

/** hook is one Claude Code hook payload, as Claude Code sends it. */
function hook(event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_id: SESSION, transcript_path: transcript, cwd: '/home/me/src/argon', hook_event_name: event, ...extra };
}

async function send(body: Record<string, unknown>) {
  const res = await postJSON(host.url, '/agents-notch/hooks/claude-code', body);
  expect(res.status).toBe(200);
}

const call = (id: string, command: string) => ({ tool_name: 'Bash', tool_input: { command }, tool_use_id: id });
const ask = (command: string) => ({
  tool_name: 'Bash',
  tool_input: { command, description: 'Remove the build output' },
  permission_suggestions: [
    { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: command }], behavior: 'allow', destination: 'localSettings' },
  ],
});

test('a held approval is answered from the board with the keyboard; a terminal answer clears its card', async ({ page }) => {
  test.slow(); // an axe scan
  await openBoard(page, host.url);
  await send(hook('UserPromptSubmit', { prompt: 'Clean the build' }));
  await send(hook('PreToolUse', call('toolu_01', 'rm -rf build/')));
  // Claude Code waits on this request: the host holds it for the board.
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook('PermissionRequest', ask('rm -rf build/')));

  const r = row(page, SESSION);
  await expect(r).toHaveAttribute('data-status', 'attention');
  const card = page.locator('.card[data-state="waiting"]');
  await expect(card).toBeVisible();
  await expect(card.locator('.card-tool')).toHaveText('Bash');
  await expect(card.locator('.card-command')).toHaveText('rm -rf build/');
  await expect(card.getByRole('button', { name: 'Allow once' })).toBeVisible();
  await expect(card.getByRole('button', { name: /Always allow/ })).toContainText('Bash(rm -rf build/)');
  await expect(card.getByRole('button', { name: 'Deny' })).toBeVisible();
  // axe on the board (a waiting card is the richest state a card has).
  const axe = await new AxeBuilder({ page }).include('#board').analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), 'axe, a waiting card').toEqual([]);

  // The keyboard reaches every control of the card, in order.
  await card.getByRole('button', { name: 'Allow once' }).focus();
  await page.keyboard.press('Tab');
  await expect(card.getByRole('button', { name: /Always allow/ })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(card.getByRole('textbox')).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await expect(card.getByRole('button', { name: 'Allow once' })).toBeFocused();
  await page.keyboard.press('Enter');

  const res = await held;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  await expect(page.locator('.card[data-state="answered"] .card-state')).toHaveText('Allowed from the board');
  await expect(r).toHaveAttribute('data-status', 'working');

  // The next call is refused in Claude Code's own prompt (No / Esc): no hook
  // says so; the transcript does, and the card and the row follow at once.
  await send(hook('PostToolUse', { ...call('toolu_01', 'rm -rf build/'), tool_response: {} }));
  await send(hook('PreToolUse', call('toolu_02', 'rm -rf dist/')));
  const held2 = postJSON(host.url, '/agents-notch/hooks/claude-code', hook('PermissionRequest', ask('rm -rf dist/')));
  const card2 = page.locator('.card[data-state="waiting"]');
  await expect(card2.locator('.card-command')).toHaveText('rm -rf dist/');
  fs.appendFileSync(
    transcript,
    JSON.stringify({
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_02',
            is_error: true,
            content:
              "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
          },
        ],
      },
    }) + '\n',
  );
  const answered2 = page.locator('.card[data-state="answered"]', { hasText: 'rm -rf dist/' });
  await expect(answered2.locator('.card-state')).toHaveText('Refused in Claude Code', { timeout: 2000 });
  const res2 = await held2;
  expect(await res2.text(), 'the terminal decided: the held hook gets no decision').toBe('');
  await expect(r).toHaveAttribute('data-status', 'done');
  // Answered cards go after a moment.
  await expect
    .poll(async () => page.evaluate(() => [...document.querySelectorAll('.card')].map((c) => c.outerHTML).join('\n')), { timeout: 15_000 })
    .toBe('');
});

test('a click on a card the terminal answered first is told so', async ({ page }) => {
  await openBoard(page, host.url);
  await send(hook('UserPromptSubmit', { prompt: 'Again' }));
  await send(hook('PreToolUse', call('toolu_03', 'make clean')));
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook('PermissionRequest', ask('make clean')));
  const card = page.locator('.card[data-state="waiting"]');
  await expect(card).toBeVisible();
  // A copy of the card, outside the live board, is what a page that has not
  // heard the news yet still shows: its Allow comes too late.
  await page.evaluate(() => {
    const c = document.querySelector('.card[data-state="waiting"]')!.cloneNode(true) as HTMLElement;
    c.id = 'stale-card';
    document.querySelector('main')!.appendChild(c);
  });
  await send(hook('PostToolUse', { ...call('toolu_03', 'make clean'), tool_response: {} }));
  expect(await (await held).text()).toBe('');
  await expect(page.locator('#board .card[data-state="waiting"]')).toHaveCount(0);
  await page.locator('#stale-card').getByRole('button', { name: 'Allow once' }).click();
  await expect(page.locator('#toast')).toHaveText('Already answered in the terminal.');
});

// Always allow grants exactly what the card shows (issue 31, item 10): a
// suggestion of more rules than fit the button is counted there, and the
// list under it unfolds to every rule — the bare Bash, last of 31, too.
test('an Always allow of many rules counts them and unfolds every one', async ({ page }) => {
  test.slow(); // an axe scan
  await openBoard(page, host.url);
  const id = 'toolu_many';
  await send(hook('UserPromptSubmit', { prompt: 'Build everything' }));
  await send(hook('PreToolUse', call(id, 'make target-00')));
  const rules = [
    ...Array.from({ length: 30 }, (_, i) => ({ toolName: 'Bash', ruleContent: `make target-${String(i).padStart(2, '0')}:*` })),
    { toolName: 'Bash' },
  ];
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook('PermissionRequest', {
    tool_name: 'Bash',
    tool_input: { command: 'make target-00' },
    permission_suggestions: [{ type: 'addRules', rules, behavior: 'allow', destination: 'localSettings' }],
  }));
  const card = page.locator('.card[data-state="waiting"]');
  await expect(card.getByRole('button', { name: /Always allow/ })).toHaveText('Always allow 31 rules');
  const list = card.locator('details.card-rules');
  await expect(list.locator('summary')).toHaveText('The 31 rules it grants');
  await expect(list.locator('li').first()).toBeHidden();
  await list.locator('summary').click();
  await expect(list.locator('li')).toHaveCount(31);
  await expect(list.locator('li').last()).toHaveText('Bash');
  await list.locator('li').last().scrollIntoViewIfNeeded();
  await expect(list.locator('li').last()).toBeVisible();
  const axe = await new AxeBuilder({ page }).include('#board').analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), 'axe, an unfolded list of rules').toEqual([]);
  await card.screenshot({ path: 'test-results/approval-always-rules.png' });
  await card.getByRole('button', { name: /Always allow/ }).click();
  const res = await held;
  const body = await res.json();
  expect(body.hookSpecificOutput.decision.updatedPermissions[0].rules).toEqual(rules);
  await send(hook('Stop'));
});
