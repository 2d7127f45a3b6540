// The locks, tried by a real browser: a page on notch-web's own origin may
// write one setting; pages on another port (same-site) or another site may
// not, whatever request they try.
import { test, expect } from '@playwright/test';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { startHost, readSettingsFile, Host } from './host';

let host: Host;

test.beforeAll(async () => {
  // INFO: every request is one dsh.http.request.v1 record (here: the POSTs), refused
  // ones too (the WARNING "request refused" records of identical requests
  // are summarised, not repeated).
  host = await startHost(['--log-level', 'info']);
});

/** writes are the request records of POSTs to the settings, in order. */
const writes = () =>
  host.log.filter((r) => r.log_type === 'dsh.http.request.v1' && r.data?.method === 'POST' && r.data?.path === '/agents-notch/settings');
test.afterAll(async () => {
  await host.stop();
});

test('a page on the server\'s own origin writes exactly the one key it posts', async ({ page }) => {
  await page.goto(host.url + '/agents-notch/pane');
  const status = await page.evaluate(async () => {
    const res = await fetch('/agents-notch/settings', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scale: 1.25 }),
    });
    return res.status;
  });
  expect(status).toBe(200);
  expect(JSON.parse(readSettingsFile(host.home)!)).toEqual({ scale: 1.25 });
});

// attackerPage tries every way a page has to send a POST: a JSON fetch (needs
// a preflight), a no-cors text/plain fetch (a "simple request"), a form POST
// into an iframe, and sendBeacon.
function attackerPage(target: string): string {
  const url = JSON.stringify(target + '/agents-notch/settings');
  return `<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="f" method="POST" action=${url} enctype="text/plain" target="sink">
  <input name='{"scale":2,"x":"' value='"}'>
</form>
<script>
window.attack = async () => {
  const out = {};
  try {
    const r = await fetch(${url}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"scale":2}' });
    out.json = r.status;
  } catch (e) { out.json = 'blocked'; }
  try {
    await fetch(${url}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"scale":2}' });
    out.noCors = 'sent';
  } catch (e) { out.noCors = 'blocked'; }
  try {
    out.beacon = navigator.sendBeacon(${url}, '{"scale":2}');
  } catch (e) { out.beacon = 'blocked'; }
  await new Promise((resolve) => {
    document.getElementById('sink').addEventListener('load', resolve, { once: true });
    document.getElementById('f').submit();
  });
  out.form = 'submitted';
  return out;
};
</script></body></html>`;
}

async function serveAttacker(bind: string, target: string): Promise<{ origin: string; close: () => void }> {
  const srv = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(attackerPage(target));
  });
  await new Promise<void>((r) => srv.listen(0, bind, r));
  const port = (srv.address() as AddressInfo).port;
  return { origin: `http://${bind === '127.0.0.1' ? '127.0.0.1' : bind}:${port}`, close: () => srv.close() };
}

for (const [name, bind, pageHost] of [
  ['another port on the same host (same-site)', '127.0.0.1', '127.0.0.1'],
  ['another site (127.0.0.2)', '127.0.0.2', '127.0.0.2'],
  ['another site (localhost)', '127.0.0.1', 'localhost'],
] as const) {
  test(`a page from ${name} changes nothing`, async ({ page }) => {
    const before = readSettingsFile(host.home);
    const refusedBefore = writes().length;
    const attacker = await serveAttacker(bind, host.url);
    try {
      const port = new URL(attacker.origin).port;
      await page.goto(`http://${pageHost}:${port}/`);
      const out = await page.evaluate(() => (window as any).attack());
      // The JSON fetch never gets a readable 2xx: its preflight is refused.
      expect(out.json).not.toBe(200);
      expect(out.form).toBe('submitted');
      // The simple requests did reach the server, and were refused there.
      await expect.poll(() => writes().length - refusedBefore).toBeGreaterThanOrEqual(3);
      const refused = writes().slice(refusedBefore);
      for (const r of refused) expect([403, 415]).toContain(r.data.status);
      expect(readSettingsFile(host.home)).toBe(before);
    } finally {
      attacker.close();
    }
  });
}

test('a rebound name is refused even for GET', async ({ request }) => {
  const res = await request.get(host.url + '/agents-notch/settings', { headers: { host: 'attacker.example:80' } });
  expect(res.status()).toBe(403);
});
