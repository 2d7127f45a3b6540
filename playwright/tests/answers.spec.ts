// Questions, plans, Reply and Stop from the board (issue 30). A Claude Code
// AskUserQuestion and ExitPlanMode, posted as Claude Code's http hook posts
// them, are held while their cards wait; the keyboard answers them (radio
// group, checkboxes, Other, Submit; the plan's buttons) and the held
// request gets Claude Code's decision. A session in tmux gets a Reply box
// and Stop; the host's tmux is a stand-in on PATH that records its argv,
// and the agent in the pane a process on a terminal of its own (script(1)),
// the terminal's foreground, as the host checks before it types.
// Screenshots at 1280 and 390 px.
import { test, expect, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { postJSON, startHost, type Host } from './host';
import { openPane, type Pane } from './pane';
import { expectAxeClean, openBoard, row } from './ui';

const SESSION = '7d1c2e19-8b3d-4f6a-9e05-1c2d3e4f5a6b';
const TMUXED = '9e2d3f40-1111-4f6a-9e05-1c2d3e4f5a6b';

let host: Host;
let transcript: string;
let argvLog: string;
let sock: string;
let pane: Pane;

test.beforeAll(async () => {
  pane = await openPane('%3');
  ({ sock, argvLog } = pane);
  host = await startHost(['--approval-hold', '5m'], undefined, { PATH: `${pane.bin}:${process.env.PATH}` });
  transcript = path.join(host.home, 'transcript.jsonl');
  fs.writeFileSync(transcript, '');
});
test.afterAll(async () => {
  await host?.stop();
  pane?.close();
});

function hook(session: string, event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_id: session, transcript_path: transcript, cwd: '/home/me/src/argon', hook_event_name: event, ...extra };
}

async function send(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(host.url + '/agents-notch/hooks/claude-code', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

const QUESTIONS = {
  questions: [
    {
      question: 'Which colour should the <b>button</b> be?',
      header: 'Colour',
      options: [
        { label: 'Teal', description: 'Cool, like the rest of the board' },
        { label: 'Coral \u202etxt.exe', description: '</div><script>alert(1)</script>' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which checks should run?',
      header: 'Checks',
      options: [{ label: 'Lint' }, { label: 'Unit tests' }, { label: 'Browser tests' }],
      multiSelect: true,
    },
  ],
};

const PLAN = {
  plan: '# Plan\n\n## Context\nThe board answers questions.\n\n1. Parse the **questions**.\n2. Draw <b>cards</b>.\n' + '- a step\n'.repeat(40),
  planFilePath: '/home/me/.claude/plans/p.md',
};

async function shots(page: Page, name: string) {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('a question card is answered with the keyboard: a radio group, checkboxes, Other', async ({ page }) => {
  test.slow(); // axe scans
  await openBoard(page, host.url);
  await send(hook(SESSION, 'UserPromptSubmit', { prompt: 'Style the button' }));
  await send(hook(SESSION, 'PreToolUse', { tool_name: 'AskUserQuestion', tool_input: QUESTIONS, tool_use_id: 'toolu_q1' }));
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook(SESSION, 'PermissionRequest', { tool_name: 'AskUserQuestion', tool_input: QUESTIONS }));

  const card = page.locator('.card[data-kind="question"][data-state="waiting"]');
  await expect(card).toBeVisible();
  const colour = card.getByRole('radiogroup', { name: /Which colour/ });
  await expect(colour).toBeVisible();
  await expect(colour.getByRole('radio')).toHaveCount(3); // two options and Other
  await expect(card.getByRole('group', { name: /Which checks/ }).getByRole('checkbox')).toHaveCount(4);
  // Hostile text is text: markup as its characters, the bidi override gone.
  await expect(card.locator('legend').first()).toContainText('Which colour should the <b>button</b> be?');
  await expect(card.locator('.card-opt-label').nth(1)).toHaveText('Coral txt.exe');
  await expect(card.locator('.card-opt-note').nth(1)).toHaveText('</div><script>alert(1)</script>');
  await expectAxeClean(page, 'a waiting question card');
  await shots(page, 'answers-question');

  // The keyboard: arrows move within the radio group, Space ticks a box.
  await colour.getByRole('radio', { name: /Teal/ }).focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowDown');
  await expect(colour.getByRole('radio', { name: /Coral/ })).toBeChecked();
  const checks = card.getByRole('group', { name: /Which checks/ });
  await checks.getByRole('checkbox', { name: 'Lint' }).focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(checks.getByRole('checkbox', { name: 'Browser tests' })).toBeFocused();
  await page.keyboard.press('Space');
  await checks.getByRole('textbox').focus();
  await page.keyboard.type('and fuzz');
  await expect(checks.getByRole('checkbox', { name: /Other/ })).toBeChecked();
  await card.getByRole('button', { name: 'Submit answers' }).focus();
  await expect(card.getByRole('button', { name: 'Submit answers' })).toBeFocused();
  await page.keyboard.press('Enter');

  const res = await held;
  const d = (await res.json()).hookSpecificOutput.decision;
  expect(d.behavior).toBe('allow');
  expect(d.updatedInput.questions).toEqual(QUESTIONS.questions);
  expect(d.updatedInput.answers).toEqual({
    'Which colour should the <b>button</b> be?': 'Coral \u202etxt.exe',
    'Which checks should run?': 'Lint, Browser tests, and fuzz',
  });
  await expect(page.locator('.card[data-kind="question"][data-state="answered"] .card-state')).toHaveText('Answered from the board');
});

test('a plan card shows the plan as text and approves it with auto-accept edits', async ({ page }) => {
  test.slow();
  await openBoard(page, host.url);
  await send(hook(SESSION, 'PostToolUse', { tool_name: 'AskUserQuestion', tool_input: QUESTIONS, tool_use_id: 'toolu_q1', tool_response: {} }));
  await send(hook(SESSION, 'PreToolUse', { tool_name: 'ExitPlanMode', tool_input: PLAN, tool_use_id: 'toolu_p1' }));
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook(SESSION, 'PermissionRequest', { tool_name: 'ExitPlanMode', tool_input: PLAN, permission_mode: 'plan' }));
  const card = page.locator('.card[data-kind="plan"][data-state="waiting"]');
  await expect(card).toBeVisible();
  const plan = card.getByRole('region', { name: 'The plan' });
  await expect(plan).toContainText('2. Draw <b>cards</b>.');
  expect(await plan.evaluate((el) => el.scrollHeight > el.clientHeight), 'a long plan scrolls in its box').toBe(true);
  await expectAxeClean(page, 'a waiting plan card');
  await shots(page, 'answers-plan');
  await plan.focus();
  await page.keyboard.press('Tab');
  await expect(card.getByRole('button', { name: 'Approve', exact: true })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(card.getByRole('button', { name: 'Approve and auto-accept edits' })).toBeFocused();
  await page.keyboard.press('Enter');
  const d = (await (await held).json()).hookSpecificOutput.decision;
  expect(d).toEqual({ behavior: 'allow', updatedInput: PLAN, updatedPermissions: [{ destination: 'session', mode: 'acceptEdits', type: 'setMode' }] });
  // The question card answered just before may still linger: this plan's.
  await expect(page.locator('.card[data-kind="plan"][data-state="answered"] .card-state')).toHaveText('Plan approved from the board; edits are accepted');
});

test('a session in tmux takes a Reply when done and a Stop while it works', async ({ page }) => {
  test.slow();
  await openBoard(page, host.url);
  const where = new URLSearchParams({ 'tmux-pane': '%3', 'tmux-socket': sock }).toString();
  await send(hook(TMUXED, 'SessionStart', { source: 'startup' }), { 'Notch-Where': where, 'Notch-Proc': pane.agentProc });
  await send(hook(TMUXED, 'UserPromptSubmit', { prompt: 'Tidy the docs' }));
  const r = row(page, TMUXED);
  const stop = page.locator(`.steer[data-session="${TMUXED}"]`).getByRole('button', { name: /^Stop / });
  await expect(stop).toBeVisible();
  await send(hook(TMUXED, 'Stop'));
  await expect(r).toHaveAttribute('data-status', 'done');
  const box = page.locator(`.steer[data-session="${TMUXED}"]`).getByRole('textbox', { name: /Reply to/ });
  await expect(box).toBeVisible();
  await expectAxeClean(page, 'a Reply box');
  await shots(page, 'answers-reply');
  fs.writeFileSync(argvLog, '');
  await box.focus();
  await page.keyboard.type('Now the README');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('and $(the) `docs`');
  await page.keyboard.press('Enter');
  await expect(box).toHaveValue('');
  const nonce = (argv: string[]) => argv.map((a, i) => (argv[i - 1] === '-p' && argv[i - 2] === 'display-message' ? 'NONCE' : a));
  await expect
    .poll(() =>
      fs
        .readFileSync(argvLog, 'utf8')
        .split('\0\n')
        .filter(Boolean)
        .map((l) => nonce(l.split('\0').filter(Boolean))),
    )
    .toEqual([
      ['-S', sock, 'list-panes', '-a', '-F', '#{pane_id} #{pane_pid}', ';', 'display-message', '-p', 'NONCE', ';', 'capture-pane', '-p', '-e', '-t', '%3'],
      ['-S', sock, 'send-keys', '-t', '%3', '-l', '--', 'Now the README\nand $(the) `docs`'],
      ['-S', sock, 'send-keys', '-t', '%3', 'Enter'],
    ]);
});

// A finished row's push has Reply: a link to the board with ?reply=<row
// id>, which opens that row's reply box, focused, and leaves the address
// clean; a row that takes no reply is said so. Nothing is sent.
test('a push’s Reply link opens the row’s reply box', async ({ page }) => {
  test.slow();
  const id = '0b7e4a11-2222-4f6a-9e05-1c2d3e4f5a6b';
  const where = new URLSearchParams({ 'tmux-pane': '%3', 'tmux-socket': sock }).toString();
  await send(hook(id, 'SessionStart', { source: 'startup' }), { 'Notch-Where': where, 'Notch-Proc': pane.agentProc });
  await send(hook(id, 'UserPromptSubmit', { prompt: 'Tidy the docs' }));
  await send(hook(id, 'Stop'));
  fs.writeFileSync(argvLog, '');
  await page.goto(`${host.url}/agents-notch/?reply=${id}`);
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const box = page.locator(`.steer[data-session="${id}"]`).getByRole('textbox', { name: /Reply to/ });
  await expect(box).toBeFocused();
  expect(new URL(page.url()).search).toBe('');
  await page.goto(`${host.url}/agents-notch/?reply=no-such-row`);
  await expect(page.locator('#toast')).toHaveText('That session no longer takes a reply from the board.');
  expect(fs.readFileSync(argvLog, 'utf8')).toBe('');
});
