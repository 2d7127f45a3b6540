// What it changed (issue 51): an Edit approval's card shows the edit as a
// unified diff (line numbers, + and − marks besides colour), and a row's
// Changes page lists what its session changed in its git work tree since
// it opened — not the file the user had changed before — with each file's
// diff and its new untracked files; a line's number picks it for Reply
// with a comment, which goes through the board's Reply into the session's
// tmux pane (a stand-in on PATH). Both at 390 px, axe clean.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { postJSON, startHost, type Host } from './host';
import { openPane, type Pane } from './pane';
import { openBoard } from './ui';

const SESSION = '7d0f5142-4444-4f6a-9e05-1c2d3e4f5a6b';

let host: Host;
let pane: Pane;
let repo: string;
let transcript: string;

function git(...args: string[]) {
  execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

test.beforeAll(async () => {
  pane = await openPane('%5');
  host = await startHost(['--approval-hold', '5m'], undefined, { PATH: `${pane.bin}:${process.env.PATH}` });
  transcript = path.join(host.home, 'transcript.jsonl');
  fs.writeFileSync(transcript, '');
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-pw-repo-'));
  const lines = Array.from({ length: 60 }, (_, i) => `export const v${i + 1} = ${i + 1};`);
  fs.writeFileSync(path.join(repo, 'app.ts'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(repo, 'README.md'), '# Demo\n');
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'one');
  // The user's own edit before the session: not the agent's.
  fs.writeFileSync(path.join(repo, 'README.md'), '# Demo\n\nMy own note.\n');
});
test.afterAll(async () => {
  await host?.stop();
  pane?.close();
});

function hook(event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_id: SESSION, transcript_path: transcript, cwd: repo, hook_event_name: event, ...extra };
}

async function send(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(host.url + '/agents-notch/hooks/claude-code', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

async function axeClean(page: import('@playwright/test').Page, include: string, what: string) {
  const axe = await new AxeBuilder({ page }).include(include).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `axe, ${what}`).toEqual([]);
}

test.use({ viewport: { width: 390, height: 844 } });

test('an Edit approval card shows its diff at 390 px', async ({ page }) => {
  test.setTimeout(300_000); // axe, on a busy machine
  await openBoard(page, host.url);
  const where = new URLSearchParams({ 'tmux-pane': '%5', 'tmux-socket': pane.sock }).toString();
  await send(hook('SessionStart', { source: 'startup' }), { 'Notch-Where': where, 'Notch-Proc': pane.agentProc });
  await send(hook('UserPromptSubmit', { prompt: 'Rename v30' }));
  const input = {
    file_path: path.join(repo, 'app.ts'),
    old_string: 'export const v30 = 30;\n',
    new_string: 'export const thirty = 30;\nexport const v30 = thirty; // \u202e kept\n',
  };
  await send(hook('PreToolUse', { tool_name: 'Edit', tool_input: input, tool_use_id: 'toolu_e1' }));
  const held = postJSON(host.url, '/agents-notch/hooks/claude-code', hook('PermissionRequest', { tool_name: 'Edit', tool_input: input }));
  const card = page.locator('.card[data-state="waiting"][data-call="toolu_e1"]');
  await expect(card).toBeVisible();
  const diff = card.locator('.diff');
  await expect(diff.locator('.diff-path')).toHaveText('app.ts');
  await expect(diff.locator('.diff-count')).toHaveText(/\+2\s*−1/);
  // The lines carry the file's own numbers, and their marks.
  const removed = diff.locator('.diff-body > .d');
  await expect(removed).toHaveCount(1);
  await expect(removed).toHaveAttribute('data-o', '30');
  await expect(removed.locator('b')).toHaveText('−');
  const added = diff.locator('.diff-body > .a');
  await expect(added).toHaveCount(2);
  await expect(added.nth(1)).toHaveAttribute('data-n', '31');
  await expect(added.nth(1).locator('code')).toHaveText('export const v30 = thirty; // \\u202e kept');
  await expect(card.locator('.card-cwd code')).toHaveText(repo);
  // Readable at 390 px: the card does not make the page scroll sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await axeClean(page, '#board', 'an Edit card');
  await page.screenshot({ path: 'test-results/diffs-card-390.png', fullPage: true });
  await card.getByRole('button', { name: 'Allow once' }).click();
  expect((await held).status).toBe(200);
  // The agent writes it; its turn ends.
  fs.writeFileSync(path.join(repo, 'app.ts'), fs.readFileSync(path.join(repo, 'app.ts'), 'utf8').replace(input.old_string, input.new_string));
  fs.writeFileSync(path.join(repo, 'NOTES.md'), 'new\n');
  await send(hook('PostToolUse', { tool_name: 'Edit', tool_input: input, tool_use_id: 'toolu_e1', tool_response: {} }));
  await send(hook('Stop'));
});

test('a Changes view at 390 px, and Reply with a comment quoting a line', async ({ page }) => {
  test.setTimeout(300_000); // axe, on a busy machine
  await page.goto(`${host.url}/agents-notch/changes?session=${SESSION}`);
  await expect(page.locator('#chg-summary')).toHaveText('1 file changed, +2 −1, 1 untracked');
  await expect(page.locator('.chg-files li')).toHaveText([/app\.ts/]);
  await expect(page.locator('.chg-untracked code')).toHaveText(['NOTES.md']);
  await expect(page.locator('.diff[data-path="README.md"]'), "the user's own earlier edit").toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await axeClean(page, 'main', 'the Changes view');
  await page.screenshot({ path: 'test-results/diffs-changes-390.png', fullPage: true });

  // Pick line 31 by its number, with the keyboard, and reply.
  const pick = page.locator('.diff[data-path="app.ts"] .diff-body .p', { hasText: /^31$/ });
  await pick.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#chg-where')).toHaveText('About app.ts, line 31: export const v30 = thirty; // \\u202e kept');
  await expect(page.locator('#chg-text')).toBeFocused();
  await page.keyboard.type('Name it thirty everywhere');
  fs.writeFileSync(pane.argvLog, '');
  const [req] = await Promise.all([
    page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/agents-notch/reply')),
    page.getByRole('button', { name: 'Send' }).click(),
  ]);
  const text = 'About app.ts, line 31:\n> export const v30 = thirty; // \\u202e kept\nName it thirty everywhere';
  expect(req.postDataJSON()).toEqual({ sessionId: SESSION, text });
  expect((await req.response())?.status()).toBe(200);
  await expect(page.locator('#chg-status')).toHaveText('Sent to the session.');
  await expect
    .poll(() => fs.readFileSync(pane.argvLog, 'utf8').split('\0\n').filter(Boolean).map((l) => l.split('\0').filter(Boolean)))
    .toContainEqual(['-S', pane.sock, 'send-keys', '-t', '%5', '-l', '--', text]);
  await page.screenshot({ path: 'test-results/diffs-comment-sent-390.png', fullPage: true });
});

test('a session whose folder is no git work tree says so', async ({ page }) => {
  const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-pw-plain-'));
  await send({ session_id: 'plain-1', cwd: plain, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
  await page.goto(`${host.url}/agents-notch/changes?session=plain-1`);
  await expect(page.locator('#chg-none')).toHaveText('no changes view: not a git work tree');
});
