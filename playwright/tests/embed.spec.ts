// The pane where it lives: inside the harness app. A page on the configured
// harness origin (--harness-origin, here another port on the host's own
// site) frames the pane in a narrow column; the pane loads, its stream connects, one click
// stores exactly one key, it fits 360 px without scrolling sideways, and it
// tells the harness its height. The same page on an origin that is not
// configured cannot frame it (CSP frame-ancestors) and cannot write; nor can
// a configured harness on another site write (the contract refuses every
// cross-site request).
import { test, expect, type ConsoleMessage } from '@playwright/test';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { readSettingsFile, startHost, type Host } from './host';
import { expectAxeClean, layoutProblems, parseSettings } from './ui';

type Harness = { origin: string; close: () => void };

// harnessPage is the harness app's Settings pane page: it frames the pane
// in a 360 px column, sizes the frame from the pane's height messages, and
// can try a write of its own.
function harnessPage(target: string): string {
  const pane = JSON.stringify(target + '/agents-notch/pane');
  const settings = JSON.stringify(target + '/agents-notch/settings');
  return `<!doctype html><html lang="en"><head><title>harness settings</title></head><body>
<h1>Harness settings</h1>
<iframe id="pane" title="agents notch settings" src=${pane} style="width:360px;height:400px;border:0"></iframe>
<script>
window.heights = [];
addEventListener('message', (e) => {
  if (!e.data || e.data.type !== 'agents-notch:height') return;
  window.heights.push({ origin: e.origin, height: e.data.height });
  document.getElementById('pane').style.height = e.data.height + 'px';
});
window.write = async () => {
  try {
    const r = await fetch(${settings}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"scale": 2}' });
    return r.status;
  } catch (e) {
    return 'blocked';
  }
};
</script></body></html>`;
}

async function serveHarness(bind: string, target: () => string): Promise<Harness> {
  const srv = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(harnessPage(target()));
  });
  await new Promise<void>((r) => srv.listen(0, bind, r));
  return { origin: `http://${bind}:${(srv.address() as AddressInfo).port}`, close: () => srv.close() };
}

let host: Host;
let harness: Harness;
let stranger: Harness;
let farHarness: Harness;
test.beforeEach(async () => {
  harness = await serveHarness('127.0.0.1', () => host.url); // another port: the same site
  stranger = await serveHarness('127.0.0.2', () => host.url);
  farHarness = await serveHarness('127.0.0.2', () => host.url); // configured, but another site
  host = await startHost(['--harness-origin', harness.origin, '--harness-origin', farHarness.origin]);
});
test.afterEach(async () => {
  await host.stop();
  harness.close();
  stranger.close();
  farHarness.close();
});

test('the configured harness frames the pane: live, one click stores one key, fits 360 px, and is told its height', async ({ page }) => {
  test.slow(); // an axe scan
  await page.goto(harness.origin + '/');
  const frame = page.frameLocator('#pane');
  await expect(frame.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(frame.locator('html')).toHaveAttribute('data-framed', '');
  const pane = page.frames().find((f) => f.url().startsWith(host.url))!;
  expect(pane).toBeTruthy();

  // it tells the harness its height, from its own origin, and the harness sizes the frame by it
  await expect.poll(() => page.evaluate(() => (window as any).heights.length)).toBeGreaterThan(0);
  const [last] = (await page.evaluate(() => (window as any).heights)).slice(-1);
  expect(last.origin).toBe(host.url);
  const content = await pane.evaluate(() => Math.ceil(document.querySelector('main')!.getBoundingClientRect().height));
  expect(last.height).toBe(content);
  await expect.poll(() => page.locator('#pane').evaluate((e) => e.getBoundingClientRect().height)).toBe(content);
  // so the frame shows the whole pane, without a scrollbar either way
  expect(await pane.evaluate(() => document.documentElement.scrollHeight <= document.documentElement.clientHeight + 1)).toBe(true);
  expect(await layoutProblems(pane, 'main')).toEqual([]);
  await expectAxeClean(page, 'the pane framed by the harness');

  // one click, one key
  expect(readSettingsFile(host.home)).toBeNull();
  await frame.getByLabel('Show the project', { exact: true }).click();
  await expect.poll(() => parseSettings(readSettingsFile(host.home))).toEqual({ showProject: false });
  await expect(frame.locator('#set-showProject .source')).toHaveText('pane');
  // the way to the board opens beside the harness, not inside its frame
  await expect(frame.getByRole('link', { name: 'Open the board' })).toHaveAttribute('target', '_blank');
});

test('a page on an origin that is not configured can neither frame the pane nor write', async ({ page }) => {
  const refusals: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' && m.text().includes('frame-ancestors')) refusals.push(m.text());
  });
  await page.goto(stranger.origin + '/');
  await expect.poll(() => refusals.length).toBeGreaterThan(0);
  expect(refusals[0]).toContain(host.url);
  // nothing of the pane ran: the frame holds the browser's error page, and
  // no height was told
  const framed = page.frames().filter((f) => f !== page.mainFrame());
  expect(framed).toHaveLength(1);
  expect(framed[0].url()).not.toContain('/agents-notch/pane');
  expect(await framed[0].evaluate(() => document.documentElement.dataset.page ?? '')).toBe('');
  expect(await page.evaluate(() => (window as any).heights)).toEqual([]);

  // and a write of its own is refused (its preflight gets 403)
  const before = host.log.filter((r) => r.log_type === 'agents-notch.security.v1').length;
  expect(await page.evaluate(() => (window as any).write())).toBe('blocked');
  await expect
    .poll(() => host.log.filter((r) => r.log_type === 'agents-notch.security.v1').slice(before).map((r) => r.data.status))
    .toContain(403);
  expect(readSettingsFile(host.home)).toBeNull();

  // a configured harness on another site may not: its request is cross-site
  await page.goto(farHarness.origin + '/');
  expect(await page.evaluate(() => (window as any).write())).toBe(403);
  expect(readSettingsFile(host.home)).toBeNull();

  // the configured harness on this site may: its CORS preflight is answered
  await page.goto(harness.origin + '/');
  expect(await page.evaluate(() => (window as any).write())).toBe(200);
  expect(parseSettings(readSettingsFile(host.home))).toEqual({ scale: 2 });
});
