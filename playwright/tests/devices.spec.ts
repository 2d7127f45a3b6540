// Pairing a phone, in real Chromium: the host serves https with a
// certificate made here (--tls-cert/--tls-key) and takes the name
// phone.example (--allow-host); the "phone" is a second Chromium at 390 px
// that resolves phone.example to 127.0.0.1. Before pairing it is refused;
// the desk's pane makes a one-time link with its QR code; the phone opens
// the link, pairs, and uses the board; Revoke in the pane refuses it again.
import { test, expect, chromium, type Browser, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import config from '../playwright.config';
import { type Host } from './host';
import { DESK_PATCH, expectAxeClean, layoutProblems, seedDesk, startHostWithPatch } from './ui';

let host: Host;
let phoneBrowser: Browser;
let phoneBase: string;
const shots = path.join(__dirname, '..', 'test-results', 'devices');

test.beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=phone.example', '-addext', 'subjectAltName=DNS:phone.example',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  host = await startHostWithPatch(DESK_PATCH, ['--allow-host', 'phone.example', '--tls-cert', cert, '--tls-key', key]);
  await seedDesk(host.url);
  phoneBase = `https://phone.example:${new URL(host.url).port}`;
  const launch = config.use!.launchOptions!;
  phoneBrowser = await chromium.launch({
    ...launch,
    args: [...(launch.args ?? []), '--host-resolver-rules=MAP phone.example 127.0.0.1'],
  });
  fs.mkdirSync(shots, { recursive: true });
});
test.afterAll(async () => {
  await phoneBrowser?.close();
  await host?.stop();
});

async function phonePage(): Promise<Page> {
  const ctx = await phoneBrowser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true, deviceScaleFactor: 2 });
  return ctx.newPage();
}

test('a phone pairs by its one-time link, uses the board, and is refused once revoked', async ({ page }) => {
  test.setTimeout(240_000); // two browsers, four axe scans, on a shared machine
  const phone = await phonePage();

  // Not paired: the board says what to do (401), and so does every API.
  const refused = await phone.goto(phoneBase + '/agents-notch/');
  expect(refused!.status()).toBe(401);
  await expect(phone.locator('h1')).toHaveText('This device is not paired');
  await expect(phone.locator('.gate-cmd')).toHaveText('notch-web devices add NAME');
  await expectAxeClean(phone, 'the not-paired page at 390');
  await phone.screenshot({ path: path.join(shots, 'not-paired-390.png') });
  expect(await phone.evaluate(async () => (await fetch('/agents-notch/state')).status)).toBe(401);

  // The desk (plainly local) makes a link in the pane.
  await page.goto(host.url + '/agents-notch/pane');
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(page.locator('#devices-none')).toBeVisible();
  await page.locator('#device-name').fill('phone');
  await page.locator('#device-add').click();
  const panel = page.locator('#device-pairing');
  await expect(panel).toBeVisible();
  await expect(panel.locator('svg.qr path')).toHaveAttribute('d', /^M\d+ \d+h/);
  const link = (await panel.locator('#pairing-url').textContent())!.trim();
  expect(link.startsWith(phoneBase + '/agents-notch/pair/')).toBe(true);
  await expectAxeClean(page, 'the pane with its pairing panel');
  await panel.screenshot({ path: path.join(shots, 'pairing-panel.png') });

  // The phone opens the link, is asked, pairs: the board, live.
  await phone.goto(link);
  await expect(phone.locator('h1')).toHaveText('Pair this device');
  await expectAxeClean(phone, 'the pairing page at 390');
  await phone.screenshot({ path: path.join(shots, 'pair-390.png') });
  await phone.locator('#pair-go').click();
  await expect(phone).toHaveURL(phoneBase + '/agents-notch/');
  await expect(phone.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(phone.locator('#board .row')).toHaveCount(7);
  expect(await layoutProblems(phone, '#notch')).toEqual([]);
  await expectAxeClean(phone, 'the paired board at 390');
  await phone.screenshot({ path: path.join(shots, 'board-paired-390.png') });
  const cookies = await phone.context().cookies(phoneBase + '/agents-notch/');
  const cookie = cookies.find((c) => c.name === 'notch_device')!;
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/agents-notch' });
  expect(await phone.evaluate(() => document.cookie)).toBe(''); // no script reads it

  // The link again: used, said plainly.
  const again = await (await phoneBrowser.newContext({ ignoreHTTPSErrors: true })).newPage();
  expect((await again.goto(link))!.status()).toBe(410);
  await expect(again.locator('h1')).toHaveText('This pairing link was used');

  // The pane lists it; Revoke refuses it at once: its stream ends, its next
  // request is 401, a reload shows the not-paired page.
  const row = page.locator('#device-list .device[data-name="phone"]');
  await expect(row).toBeVisible();
  await expect(row.locator('.device-seen')).toContainText('last seen');
  await page.locator('#g-devices').screenshot({ path: path.join(shots, 'pane-devices.png') });
  page.once('dialog', (d) => d.accept());
  await row.getByRole('button', { name: 'Revoke phone' }).click();
  await expect(page.locator('#devices-none')).toBeVisible();
  await expect(phone.locator('html')).not.toHaveAttribute('data-live', 'live');
  expect(await phone.evaluate(async () => (await fetch('/agents-notch/state')).status)).toBe(401);
  await phone.reload();
  await expect(phone.locator('h1')).toHaveText('This device is not paired');
});
