// Device roles (issue 53), in real Chromium at 390 px: a phone paired as
// `answer` sees the board but no Reply, and a steer route refuses it (403,
// naming its role); a tablet paired as `steer` has the Reply box, and when
// the desk lowers it to `view` in the pane, the open page loses Reply, Stop
// and the ✕ without a reload, and its Reply is refused. The host serves
// https with a certificate made here and takes the name phone.example; the
// host's tmux is a stand-in (pane.ts), so a session in it gets a Reply box.
import { test, expect, chromium, type Browser, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import config from '../playwright.config';
import { startHost, type Host } from './host';
import { openPane, type Pane } from './pane';
import { expectAxeClean, layoutProblems, row } from './ui';

const TMUXED = 'a3f1c2e9-2222-4f6a-9e05-1c2d3e4f5a6b';
const shots = path.join(__dirname, '..', 'test-results', 'roles');

let host: Host;
let pane: Pane;
let phoneBrowser: Browser;
let phoneBase: string;

async function send(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(host.url + '/agents-notch/hooks/claude-code', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ session_id: TMUXED, transcript_path: path.join(host.home, 't.jsonl'), cwd: '/home/me/src/argon', ...body }),
  });
  expect(res.status).toBe(200);
}

test.beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=phone.example', '-addext', 'subjectAltName=DNS:phone.example',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  pane = await openPane('%4');
  host = await startHost(['--log-level', 'info', '--allow-host', 'phone.example', '--tls-cert', cert, '--tls-key', key], undefined, { PATH: `${pane.bin}:${process.env.PATH}` });
  fs.writeFileSync(path.join(host.home, 't.jsonl'), '');
  phoneBase = `https://phone.example:${new URL(host.url).port}`;
  const launch = config.use!.launchOptions!;
  phoneBrowser = await chromium.launch({ ...launch, args: [...(launch.args ?? []), '--host-resolver-rules=MAP phone.example 127.0.0.1'] });
  fs.mkdirSync(shots, { recursive: true });
  // A session in tmux, done: the desk's board offers it a Reply.
  const where = new URLSearchParams({ 'tmux-pane': '%4', 'tmux-socket': pane.sock }).toString();
  await send({ hook_event_name: 'SessionStart', source: 'startup' }, { 'Notch-Where': where, 'Notch-Proc': pane.agentProc });
  await send({ hook_event_name: 'UserPromptSubmit', prompt: 'Tidy the docs' });
  await send({ hook_event_name: 'Stop' });
});
test.afterAll(async () => {
  await phoneBrowser?.close();
  await host?.stop();
  pane?.close();
});

// pair makes a link on this machine for a device of role, and opens it on
// a new 390 px browser: the paired board.
async function pair(name: string, role: string): Promise<Page> {
  const res = await fetch(host.url + '/agents-notch/devices/add', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, role }),
  });
  expect(res.status).toBe(200);
  const link = (await res.json()).url as string;
  const ctx = await phoneBrowser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true, deviceScaleFactor: 2 });
  const p = await ctx.newPage();
  await p.goto(link);
  await expect(p.locator('#pair-role')).toHaveText(role);
  await p.locator('#pair-go').click();
  await expect(p).toHaveURL(phoneBase + '/agents-notch/');
  await expect(p.locator('html')).toHaveAttribute('data-live', 'live');
  return p;
}

// reply posts a Reply as the page's own script would.
async function reply(p: Page): Promise<{ status: number; error: string }> {
  return p.evaluate(async (id) => {
    const res = await fetch('/agents-notch/reply', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: id, text: 'hi' }),
    });
    return { status: res.status, error: (await res.json()).error };
  }, TMUXED);
}

const replyBox = (p: Page) => p.locator(`.steer[data-session="${TMUXED}"]`).getByRole('textbox', { name: /Reply to/ });

test('an answer device sees the board but no Reply, and a steer route refuses it', async ({ page }) => {
  test.setTimeout(120_000);
  // This machine's own board at 390 (full): the Reply box is there.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(host.url + '/agents-notch/');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(page.locator('#viewer-role')).toHaveAttribute('data-role', 'launch');
  await expect(replyBox(page)).toBeVisible();
  const deskProblems = await layoutProblems(page, '#notch');
  const phone = await pair('phone', 'answer');
  const r = row(phone, TMUXED);
  await expect(r).toHaveAttribute('data-status', 'done');
  await expect(phone.locator('#viewer-role')).toHaveAttribute('data-role', 'answer');
  await expect(replyBox(phone)).toBeHidden();
  await expect(r.locator('.act.close')).toBeVisible(); // the ✕ is answer's
  await phone.screenshot({ path: path.join(shots, 'answer-board-390.png'), fullPage: true });
  // What the role hides leaves the layout as this machine's own board has it.
  expect(await layoutProblems(phone, '#notch')).toEqual(deskProblems);
  await expectAxeClean(phone, 'an answer device\'s board at 390');
  const refused = await reply(phone);
  expect(refused.status).toBe(403);
  expect(refused.error).toBe("this device's role (answer) does not allow Reply and Stop");
  await phone.context().close();
});

test('a role lowered while the page is open takes effect without a reload', async ({ page }) => {
  test.setTimeout(120_000);
  const tablet = await pair('tablet', 'steer');
  const r = row(tablet, TMUXED);
  await expect(replyBox(tablet)).toBeVisible();
  await tablet.screenshot({ path: path.join(shots, 'steer-board-390.png'), fullPage: true });
  await tablet.evaluate(() => ((window as any).__notReloaded = true));

  // The desk lowers it in the pane.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(host.url + '/agents-notch/pane');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  const line = page.locator('#device-list .device[data-name="tablet"]');
  const menu = line.getByRole('combobox', { name: 'Role of tablet' });
  await expect(menu).toHaveValue('steer');
  await expect(page.locator('#device-new-role')).toHaveValue('answer'); // the default, shown
  await expectAxeClean(page, 'the pane\'s devices with their roles at 390');
  await page.locator('#g-devices').screenshot({ path: path.join(shots, 'pane-roles-390.png') });
  await menu.selectOption('view');
  await expect(line.getByRole('combobox', { name: 'Role of tablet' })).toHaveValue('view');
  expect(host.log.some((l) => l.message === 'device role changed' && l.data?.device === 'tablet' && l.data?.was === 'steer' && l.data?.role === 'view')).toBe(true);

  // The open tablet page follows: no Reply, no ✕, and the same page.
  await expect(tablet.locator('#viewer-role')).toHaveAttribute('data-role', 'view');
  await expect(replyBox(tablet)).toBeHidden();
  await expect(r.locator('.act.close')).toBeHidden();
  await expect(tablet.locator('html')).toHaveAttribute('data-live', 'live');
  expect(await tablet.evaluate(() => (window as any).__notReloaded)).toBe(true);
  await expectAxeClean(tablet, 'a view device\'s board at 390');
  await tablet.screenshot({ path: path.join(shots, 'view-board-390.png'), fullPage: true });
  const refused = await reply(tablet);
  expect(refused.status).toBe(403);
  expect(refused.error).toBe("this device's role (view) does not allow Reply and Stop");
  await tablet.context().close();
});
