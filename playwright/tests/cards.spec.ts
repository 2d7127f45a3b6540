// Every button of every card kind, clicked in Chromium (issue 48): a
// permission card (Allow once, Always allow, Allow and accept edits, Deny
// with a reason), a question card of one choice and one of several (Submit
// answers, Decline), a plan card (Approve, Approve and auto-accept edits,
// Keep planning with a reason), and a tmux session's Reply and Stop. Each
// click's request is checked as the page sends it, then what reaches the
// held hook (or the pane's tmux, a stand-in on PATH that records its argv);
// no click may throw in the page (a question card's Decline once read a
// reason field only permission and plan cards have, and did nothing).
import { test, expect, type Page, type Request } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { postJSON, startHost, type Host } from './host';
import { openPane, type Pane } from './pane';
import { openBoard, row } from './ui';

const SESSION = '5b8d3f20-2222-4f6a-9e05-1c2d3e4f5a6b';
const TMUXED = '6c9e4031-3333-4f6a-9e05-1c2d3e4f5a6b';

let host: Host;
let transcript: string;
let argvLog: string;
let sock: string;
let pane: Pane;

test.beforeAll(async () => {
  pane = await openPane('%4');
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

/** errs is what threw in the test's page: a button that throws does nothing. */
let errs: string[] = [];

const isApprove = (r: Request) => r.method() === 'POST' && new URL(r.url()).pathname === '/agents-notch/approve';

let n = 0;

/**
 * ask posts a PreToolUse and the held PermissionRequest of tool, and
 * returns the held request's answer (a promise) and the card waiting for it.
 */
async function ask(page: Page, tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const id = `toolu_${++n}`;
  await send(hook(SESSION, 'PreToolUse', { tool_name: tool, tool_input: input, tool_use_id: id }));
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook(SESSION, 'PermissionRequest', { tool_name: tool, tool_input: input, ...extra }));
  const card = page.locator(`.card[data-state="waiting"][data-call="${id}"]`);
  await expect(card).toBeVisible();
  return { id, held, card };
}

/** click clicks a card's button and returns the request the page sent. */
async function click(page: Page, button: ReturnType<Page['locator']>) {
  const sent = page.waitForRequest(isApprove, { timeout: 30_000 }).catch(() => {
    throw new Error(`the click sent no request; the page threw: ${errs.join('; ') || 'nothing'}`);
  });
  const [req] = await Promise.all([sent, button.click()]);
  return req.postDataJSON() as Record<string, unknown>;
}

/** decision is what the held hook got: Claude Code's hookSpecificOutput.decision. */
async function decision(held: Promise<Response>) {
  const res = await held;
  expect(res.status).toBe(200);
  return (await res.json()).hookSpecificOutput.decision;
}

const BASH = { command: 'rm -rf build/', description: 'Remove the build output' };
const SUGGESTIONS = [
  { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'rm -rf build/' }], behavior: 'allow', destination: 'localSettings' },
  { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
];
const ONE = { questions: [{ question: 'Which colour?', header: 'Colour', options: [{ label: 'Teal' }, { label: 'Coral' }], multiSelect: false }] };
const SEVERAL = {
  questions: [{ question: 'Which checks?', header: 'Checks', options: [{ label: 'Lint' }, { label: 'Unit' }, { label: 'Browser' }], multiSelect: true }],
};
const PLAN = { plan: '# Plan\n\n1. Read.\n2. Write.', planFilePath: '/home/me/.claude/plans/p.md' };

test.beforeEach(async ({ page }) => {
  test.setTimeout(120_000); // four cards and their round trips each, on a shared machine
  errs = [];
  page.on('pageerror', (e) => errs.push(e.message));
  await openBoard(page, host.url);
});

test('a permission card: Allow once, Always allow, Allow and accept edits, Deny with a reason', async ({ page }) => {
  await send(hook(SESSION, 'UserPromptSubmit', { prompt: 'Clean the build' }));
  for (const c of [
    { button: 'Allow once', sent: { decision: 'allow' }, got: { behavior: 'allow' } },
    { button: /^Always allow/, sent: { decision: 'always' }, got: { behavior: 'allow', updatedPermissions: [{ ...SUGGESTIONS[0], destination: 'session' }] } }, // "in this session"
    {
      button: 'Allow and accept edits',
      sent: { decision: 'mode' },
      got: { behavior: 'allow', updatedPermissions: [{ destination: 'session', mode: 'acceptEdits', type: 'setMode' }] },
    },
  ]) {
    const { id, held, card } = await ask(page, 'Bash', BASH, { permission_suggestions: SUGGESTIONS });
    const body = await click(page, card.getByRole('button', { name: c.button }));
    expect(body).toMatchObject({ sessionId: SESSION, call: id, ...c.sent });
    expect(typeof body.nonce).toBe('string');
    expect(await decision(held)).toMatchObject(c.got);
    await expect(page.locator(`.card[data-state="waiting"][data-call="${id}"]`)).toHaveCount(0);
  }
  const { id, held, card } = await ask(page, 'Bash', BASH, { permission_suggestions: SUGGESTIONS });
  await card.getByRole('textbox', { name: /Reason for denying/ }).fill('Not the build <b>folder</b>');
  const body = await click(page, card.getByRole('button', { name: 'Deny' }));
  expect(body).toMatchObject({ sessionId: SESSION, call: id, decision: 'deny', message: 'Not the build <b>folder</b>' });
  expect(await decision(held)).toMatchObject({ behavior: 'deny', message: 'Not the build <b>folder</b>' });
  await expect(page.locator(`.card[data-state="waiting"][data-call="${id}"]`)).toHaveCount(0);
  await page.screenshot({ path: 'test-results/cards-permission-answered.png', fullPage: true });
  expect(errs).toEqual([]);
});

for (const [kind, input] of [
  ['one choice', ONE],
  ['several choices', SEVERAL],
] as const) {
  test(`a question card of ${kind}: Submit answers, Decline`, async ({ page }) => {
      const q = input.questions[0];
    let { id, held, card } = await ask(page, 'AskUserQuestion', input);
    if (q.multiSelect) {
      await card.getByRole('checkbox', { name: 'Lint' }).check();
      await card.getByRole('checkbox', { name: 'Browser' }).check();
    } else {
      await card.getByRole('radio', { name: 'Coral' }).check();
    }
    await page.screenshot({ path: `test-results/cards-question-${q.multiSelect ? 'multi' : 'single'}.png`, fullPage: true });
    let body = await click(page, card.getByRole('button', { name: 'Submit answers' }));
    expect(body).toMatchObject({ sessionId: SESSION, call: id, decision: 'answer', answers: [{ options: q.multiSelect ? [0, 2] : [1] }] });
    let d = await decision(held);
    expect(d.behavior).toBe('allow');
    expect(d.updatedInput.answers).toEqual({ [q.question]: q.multiSelect ? 'Lint, Browser' : 'Coral' });
    await expect(page.locator(`.card[data-call="${id}"] .card-state`)).toHaveText('Answered from the board');

    ({ id, held, card } = await ask(page, 'AskUserQuestion', input));
    body = await click(page, card.getByRole('button', { name: 'Decline' }));
    expect(body).toMatchObject({ sessionId: SESSION, call: id, decision: 'deny' });
    expect(body).not.toHaveProperty('message');
    d = await decision(held);
    expect(d.behavior).toBe('deny');
    await expect(page.locator(`.card[data-call="${id}"] .card-state`)).toHaveText('Declined from the board');
    await page.screenshot({ path: `test-results/cards-question-${q.multiSelect ? 'multi' : 'single'}-declined.png`, fullPage: true });
    expect(errs).toEqual([]);
  });
}

test('a plan card: Approve, Approve and auto-accept edits, Keep planning with a reason', async ({ page }) => {
  for (const c of [
    { button: 'Approve', sent: 'allow', got: { behavior: 'allow', updatedInput: PLAN } },
    {
      button: 'Approve and auto-accept edits',
      sent: 'mode',
      got: { behavior: 'allow', updatedInput: PLAN, updatedPermissions: [{ destination: 'session', mode: 'acceptEdits', type: 'setMode' }] },
    },
  ]) {
    const { id, held, card } = await ask(page, 'ExitPlanMode', PLAN, { permission_mode: 'plan' });
    const body = await click(page, card.getByRole('button', { name: c.button, exact: true }));
    expect(body).toMatchObject({ sessionId: SESSION, call: id, decision: c.sent });
    expect(await decision(held)).toMatchObject(c.got);
    await expect(page.locator(`.card[data-call="${id}"]`)).toHaveAttribute('data-state', 'answered');
  }
  const { id, held, card } = await ask(page, 'ExitPlanMode', PLAN, { permission_mode: 'plan' });
  await card.getByRole('textbox', { name: /What to change/ }).fill('Write the tests first');
  const body = await click(page, card.getByRole('button', { name: 'Keep planning' }));
  expect(body).toMatchObject({ sessionId: SESSION, call: id, decision: 'deny', message: 'Write the tests first' });
  expect(await decision(held)).toMatchObject({ behavior: 'deny', message: 'Write the tests first' });
  await expect(page.locator(`.card[data-call="${id}"] .card-state`)).toHaveText('Sent back to planning from the board');
  await page.screenshot({ path: 'test-results/cards-plan-answered.png', fullPage: true });
  expect(errs).toEqual([]);
});

test("a tmux session's Stop while it works and Reply's Send once it is done", async ({ page }) => {
  const where = new URLSearchParams({ 'tmux-pane': '%4', 'tmux-socket': sock }).toString();
  await send(hook(TMUXED, 'SessionStart', { source: 'startup' }), { 'Notch-Where': where, 'Notch-Proc': pane.agentProc });
  await send(hook(TMUXED, 'UserPromptSubmit', { prompt: 'Tidy the docs' }));
  const steer = page.locator(`.steer[data-session="${TMUXED}"]`);
  const stop = steer.getByRole('button', { name: /^Stop / });
  await expect(stop).toBeVisible();
  fs.writeFileSync(argvLog, '');
  const [stopReq] = await Promise.all([page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/agents-notch/stop')), stop.click()]);
  expect(stopReq.postDataJSON()).toEqual({ sessionId: TMUXED });
  expect((await stopReq.response())?.status()).toBe(200);
  await expect.poll(() => fs.readFileSync(argvLog, 'utf8')).toContain('send-keys');

  await send(hook(TMUXED, 'Stop'));
  await expect(row(page, TMUXED)).toHaveAttribute('data-status', 'done');
  const box = steer.getByRole('textbox', { name: /Reply to/ });
  await box.fill('Now the README');
  fs.writeFileSync(argvLog, '');
  const [replyReq] = await Promise.all([
    page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/agents-notch/reply')),
    steer.getByRole('button', { name: 'Send' }).click(),
  ]);
  expect(replyReq.postDataJSON()).toEqual({ sessionId: TMUXED, text: 'Now the README' });
  expect((await replyReq.response())?.status()).toBe(200);
  await expect(box).toHaveValue('');
  await expect
    .poll(() => fs.readFileSync(argvLog, 'utf8').split('\0\n').filter(Boolean).map((l) => l.split('\0').filter(Boolean)))
    .toContainEqual(['-S', sock, 'send-keys', '-t', '%4', '-l', '--', 'Now the README']);
  await page.screenshot({ path: 'test-results/cards-reply-sent.png', fullPage: true });
  expect(errs).toEqual([]);
});
