// Web Push in real Chromium (issue 29, docs/pushes.md#web-push). Headless
// Chromium cannot subscribe for real — PushManager.subscribe needs Google's
// push service, unreachable here — so the end-to-end test stands in for the
// browser's push service instead: a Node server subscribed through the
// host's route with its own P-256 keys receives what the host sends, checks
// the VAPID signature, decrypts it (RFC 8291, node:crypto) and hands the
// plaintext to the board's service worker with CDP's
// ServiceWorker.deliverPushMessage — what Chromium does with a push from
// its push service. The notification is read in the worker
// (registration.getNotifications()), and its Allow once is pressed by
// dispatching a notificationclick there.
import { test, expect, type BrowserContext, type CDPSession, type Page, type Worker } from '@playwright/test';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { postJSON, startHost, type Host } from './host';
import { expectAxeClean, screenshotTo } from './ui';

const SESSION = '7c1d9e2a-4b6f-4a08-9d3e-5f2a1b0c9e87';

/** b64u is base64url without padding, as the Push API spells keys. */
const b64u = (b: Buffer) => b.toString('base64url');

/** A push service for one browser: it keeps what arrives, decrypted. */
type StandIn = {
  endpoint: string;
  subscription: object;
  got: Array<{ payload: string; headers: http.IncomingHttpHeaders }>;
  problems: string[];
  close: () => Promise<void>;
};

async function standInPushService(): Promise<StandIn> {
  const ua = crypto.createECDH('prime256v1');
  ua.generateKeys();
  const auth = crypto.randomBytes(16);
  const got: StandIn['got'] = [];
  const problems: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        checkVAPID(String(req.headers.authorization ?? ''), `http://${req.headers.host}`);
        got.push({ payload: decrypt(Buffer.concat(chunks), ua, auth).toString('utf8'), headers: req.headers });
        res.writeHead(201).end();
      } catch (e) {
        problems.push(String(e));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}/push/SECRET-browser-0123456789`;
  return {
    endpoint,
    subscription: { endpoint, expirationTime: null, keys: { p256dh: b64u(ua.getPublicKey()), auth: b64u(auth) } },
    got,
    problems,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** checkVAPID verifies the ES256 JWT of "vapid t=…, k=…" against k and its claims (RFC 8292). */
function checkVAPID(header: string, origin: string): void {
  const t = /t=([^,\s]+)/.exec(header)?.[1] ?? '';
  const k = Buffer.from(/k=([^,\s]+)/.exec(header)?.[1] ?? '', 'base64url');
  const [h, c, sig] = t.split('.');
  if (k.length !== 65 || !sig) throw new Error(`not a VAPID header: ${header.slice(0, 40)}`);
  const key = crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64u(k.subarray(1, 33)), y: b64u(k.subarray(33)) },
    format: 'jwk',
  });
  if (!crypto.verify('sha256', Buffer.from(`${h}.${c}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))) {
    throw new Error('the VAPID signature does not verify against k');
  }
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
  const left = claims.exp * 1000 - Date.now();
  if (claims.aud !== origin || !(left > 0 && left <= 24 * 3600 * 1000) || !/^(mailto|https):/.test(claims.sub)) {
    throw new Error(`VAPID claims ${JSON.stringify(claims)}`);
  }
}

/** decrypt undoes aes128gcm (RFC 8188) with the browser's key and secret (RFC 8291). */
function decrypt(body: Buffer, ua: crypto.ECDH, auth: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPub = body.subarray(21, 21 + idlen);
  const ct = body.subarray(21 + idlen);
  const secret = ua.computeSecret(asPub);
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPub]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', secret, auth, info, 32));
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const d = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(ct.subarray(ct.length - 16));
  const plain = Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]);
  let end = plain.length;
  while (end > 0 && plain[end - 1] === 0) end--;
  if (plain[end - 1] !== 2) throw new Error('no last-record delimiter');
  return plain.subarray(0, end - 1);
}

/** worker registers the board's service worker for the page and returns it, with its CDP registration id. */
async function worker(context: BrowserContext, page: Page, cdp: CDPSession): Promise<{ sw: Worker; registrationId: string }> {
  let registrationId = '';
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
    const r = registrations.find((x: { scopeURL: string; isDeleted: boolean }) => x.scopeURL.endsWith('/agents-notch/') && !x.isDeleted);
    if (r) registrationId = r.registrationId;
  });
  await cdp.send('ServiceWorker.enable');
  const swEvent = context.waitForEvent('serviceworker');
  const scope = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.register('/agents-notch/sw.js', { scope: '/agents-notch/' });
    await navigator.serviceWorker.ready;
    return reg.scope;
  });
  expect(new URL(scope).pathname).toBe('/agents-notch/');
  const sw = context.serviceWorkers().find((w) => w.url().endsWith('/agents-notch/sw.js')) ?? (await swEvent);
  await expect.poll(() => registrationId).not.toBe('');
  return { sw, registrationId };
}

type Shown = { title: string; body: string; tag: string; requireInteraction: boolean; actions: Array<{ action: string; title: string }>; data: any };

const notifications = (sw: Worker) =>
  sw.evaluate(async () =>
    (await (self as any).registration.getNotifications()).map((n: any) => ({
      title: n.title, body: n.body, tag: n.tag, requireInteraction: n.requireInteraction,
      actions: n.actions.map((a: any) => ({ action: a.action, title: a.title })), data: n.data,
    })),
  ) as Promise<Shown[]>;

/**
 * pusher returns delivered(data, done): data handed to the worker as a push, until done holds of
 * the notifications it shows. CDP's delivery can be lost (seen once in a fresh-clone CI run:
 * nothing shown after 7 s, where it takes a tenth of a second), so a push is sent again after a
 * second without effect, as a push service retries: a tagged show replaces itself, and a close of
 * a closed tag is nothing.
 */
function pusher(cdp: CDPSession, origin: string, registrationId: string, sw: Worker) {
  const deliver = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
  return async (data: string, done: (ns: Shown[]) => boolean) => {
    await deliver(data);
    let tries = 0;
    await expect
      .poll(
        async () => {
          if (tries++ > 0 && !done(await notifications(sw))) await deliver(data);
          return done(await notifications(sw));
        },
        { timeout: 15_000, intervals: [1_000] },
      )
      .toBe(true);
  };
}

test.describe('the service worker', () => {
  let host: Host;
  let ps: StandIn;
  let transcript: string;

  test.beforeAll(async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-pw-push-'));
    const dir = path.join(home, 'state', 'agents-notch');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'notify.json'), JSON.stringify({ delay: '300ms' }), { mode: 0o600 });
    // The stand-in push service is http on loopback: a host allows that only for tests.
    host = await startHost(['--approval-hold', '5m'], home, { NOTCH_TEST_PUSH_HTTP: '1' });
    ps = await standInPushService();
    transcript = path.join(home, 'transcript.jsonl');
    fs.writeFileSync(transcript, '');
  });
  test.afterAll(async () => {
    await host?.stop();
    await ps?.close();
  });

  const hook = (event: string, extra: Record<string, unknown> = {}) =>
    postJSON(host.url, '/agents-notch/hooks/claude-code', {
      session_id: SESSION, transcript_path: transcript, cwd: '/home/me/src/argon', hook_event_name: event, ...extra,
    });
  const bash = { tool_name: 'Bash', tool_input: { command: 'rm -rf build/' } };

  test('a pushed permission card shows with Allow once / Deny; Allow once answers the held hook; the close takes it away', async ({ context, page }) => {
    test.slow(); // a push's delay, two round trips through the stand-in
    await context.grantPermissions(['notifications'], { origin: host.url });
    await page.goto(host.url + '/agents-notch/pane');
    const cdp = await context.newCDPSession(page);
    const { sw, registrationId } = await worker(context, page, cdp);
    const delivered = pusher(cdp, host.url, registrationId, sw);

    // This browser's subscription, as the pane hands it to the host.
    expect((await postJSON(host.url, '/agents-notch/push/subscribe', ps.subscription)).status).toBe(200);

    await hook('UserPromptSubmit', { prompt: 'Clean the build' });
    await hook('PreToolUse', { ...bash, tool_use_id: 'toolu_01' });
    const held = hook('PermissionRequest', bash).then(async (r) => [r.status, await r.text()] as const);

    await expect.poll(() => ps.got.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(ps.problems).toEqual([]);
    const show = ps.got.shift()!;
    expect(show.headers.urgency).toBe('high');
    const msg = JSON.parse(show.payload);
    expect(msg).toMatchObject({ type: 'show', kind: 'needs-you', body: 'Bash: rm -rf build/' });
    await delivered(show.payload, (ns) => ns.length === 1);
    const [n] = await notifications(sw);
    expect(n.title).toBe(msg.title);
    expect(n.title).toContain('argon');
    expect(n.body).toBe('Bash: rm -rf build/');
    expect(n.tag).toBe(msg.tag);
    expect(n.requireInteraction).toBe(true);
    expect(n.actions).toEqual([
      { action: 'allow', title: 'Allow once' },
      { action: 'deny', title: 'Deny' },
    ]);
    expect(n.data.actions.map((a: { cap: string }) => a.cap)).toEqual(msg.actions.map((a: { cap: string }) => a.cap));

    // Allow once, pressed in the worker: its POST {cap} answers the hook.
    await sw.evaluate(async () => {
      const [note] = await (self as any).registration.getNotifications();
      self.dispatchEvent(new (self as any).NotificationEvent('notificationclick', { notification: note, action: 'allow' }));
    });
    const [status, text] = await held;
    expect(status).toBe(200);
    expect(JSON.parse(text).hookSpecificOutput.decision.behavior).toBe('allow');

    // Answered: the host withdraws the push; its close takes the notification away.
    await hook('PostToolUse', { ...bash, tool_use_id: 'toolu_01', tool_response: {} });
    await expect.poll(() => ps.got.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const close = ps.got.shift()!;
    expect(JSON.parse(close.payload)).toEqual({ type: 'close', tag: msg.tag });
    // A fresh one first, so the close has something to take.
    await delivered(show.payload, (ns) => ns.length === 1);
    await delivered(close.payload, (ns) => ns.length === 0);
    expect(ps.problems).toEqual([]);
  });

  test('a button the host refuses is said in the notification, as text', async ({ context, page }) => {
    await context.grantPermissions(['notifications'], { origin: host.url });
    await page.goto(host.url + '/agents-notch/pane');
    const cdp = await context.newCDPSession(page);
    const { sw, registrationId } = await worker(context, page, cdp);
    const hostile = '<img src=x onerror=alert(1)> \u202eevil';
    const delivered = pusher(cdp, host.url, registrationId, sw);
    await delivered(
      JSON.stringify({
        type: 'show', tag: 'forged', kind: 'needs-you', title: hostile, body: 'b', url: host.url + '/agents-notch/', at: 0,
        actions: [{ action: 'deny', title: 'Deny', url: host.url + '/agents-notch/act', cap: 'forged-capability' }],
      }),
      (ns) => ns.some((x) => x.tag === 'forged'),
    );
    expect((await notifications(sw)).find((x) => x.tag === 'forged')!.title).toBe(hostile);
    await sw.evaluate(async () => {
      const [note] = await (self as any).registration.getNotifications({ tag: 'forged' });
      self.dispatchEvent(new (self as any).NotificationEvent('notificationclick', { notification: note, action: 'deny' }));
    });
    await expect
      .poll(async () => (await notifications(sw)).find((x) => x.tag === 'forged')?.body)
      .toMatch(/^Not answered: this action is not known here/);
  });
});

test.describe('Push to this device, in the pane', () => {
  let host: Host;
  test.beforeAll(async () => {
    host = await startHost();
  });
  test.afterAll(async () => {
    await host?.stop();
  });
  const subsFile = () => path.join(host.home, 'state', 'agents-notch', 'push-subscriptions.json');

  test('off, then on and off again by the keyboard; the host keeps and forgets the subscription', async ({ context, page }) => {
    // The browser's push service is stubbed (headless Chromium has none):
    // subscribe returns a subscription for the key it was given.
    const ua = crypto.createECDH('prime256v1');
    ua.generateKeys();
    const sub = { endpoint: 'https://push.example/SECRET-pane-0123', p256dh: b64u(ua.getPublicKey()), auth: b64u(crypto.randomBytes(16)) };
    await context.addInitScript((s) => {
      let current: any = null;
      PushManager.prototype.subscribe = async function (opts: PushSubscriptionOptionsInit) {
        current = {
          endpoint: s.endpoint, options: { userVisibleOnly: true, applicationServerKey: opts.applicationServerKey },
          toJSON: () => ({ endpoint: s.endpoint, expirationTime: null, keys: { p256dh: s.p256dh, auth: s.auth } }),
          unsubscribe: async () => ((current = null), true),
        };
        return current;
      };
      PushManager.prototype.getSubscription = async () => current;
    }, sub);
    await context.grantPermissions(['notifications'], { origin: host.url });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(host.url + '/agents-notch/pane');
    const box = page.getByRole('checkbox', { name: 'Push to this device' });
    const state = page.locator('#push-state');
    await expect(state).toHaveText('Off: this device gets no pushes.');
    await expect(box).toBeEnabled();
    await expect(box).not.toBeChecked();

    await box.focus();
    await page.keyboard.press('Space');
    await expect(state).toHaveText('On: this device gets the pushes.');
    await expect(box).toBeChecked();
    await expect(box).toBeFocused();
    const stored = JSON.parse(fs.readFileSync(subsFile(), 'utf8'));
    expect(stored.subscriptions.map((x: any) => [x.endpoint, x.p256dh, x.auth])).toEqual([[sub.endpoint, sub.p256dh, sub.auth]]);
    expect(fs.statSync(subsFile()).mode & 0o777).toBe(0o600);

    // A live patch of the pane leaves the control as it is.
    await postJSON(host.url, '/agents-notch/settings', { scale: 1.25 });
    await expect(page.locator('#val-scale')).toContainText('1.25');
    await expect(state).toHaveText('On: this device gets the pushes.');
    await expect(box).toBeChecked();

    await expect(page.locator('#g-browser')).toBeVisible();
    await page.locator('#push-pref').scrollIntoViewIfNeeded();
    await page.locator('#g-browser').screenshot({ path: path.join(__dirname, '..', 'test-results', 'push-pane-390-on.png') });
    await expectAxeClean(page, 'the pane with pushes on');

    await page.keyboard.press('Space');
    await expect(state).toHaveText('Off: this device gets no pushes.');
    expect(JSON.parse(fs.readFileSync(subsFile(), 'utf8')).subscriptions).toEqual([]);
    await postJSON(host.url, '/agents-notch/settings', { scale: null });
  });

  test('headless Chromium has no push service: turning on says why and stays off', async ({ context, page }) => {
    await context.grantPermissions(['notifications'], { origin: host.url });
    await page.goto(host.url + '/agents-notch/pane');
    const box = page.getByRole('checkbox', { name: 'Push to this device' });
    await expect(page.locator('#push-state')).toHaveText('Off: this device gets no pushes.');
    await box.click();
    await expect(page.locator('#push-state')).toHaveText(/^Could not turn it on: /);
    await expect(box).not.toBeChecked();
    await expect(box).toBeEnabled(); // it can be tried again
    await screenshotTo(page, 'push-pane-error.png');
  });

  test('blocked by the browser, and not supported', async ({ context, page }) => {
    const cdp = await context.newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.send('Browser.setPermission', {
      permission: { name: 'notifications' }, setting: 'denied', origin: host.url, browserContextId: targetInfo.browserContextId,
    });
    await page.goto(host.url + '/agents-notch/pane');
    const box = page.getByRole('checkbox', { name: 'Push to this device' });
    await expect(page.locator('#push-state')).toHaveText(/^Blocked by the browser: allow notifications for this site/);
    await expect(box).toBeDisabled();
    await page.locator('#g-browser').screenshot({ path: path.join(__dirname, '..', 'test-results', 'push-pane-blocked.png') });

    const other = await context.browser()!.newContext();
    const p2 = await other.newPage();
    await p2.addInitScript(() => delete (window as any).PushManager);
    await p2.goto(host.url + '/agents-notch/pane');
    await expect(p2.locator('#push-state')).toHaveText(/^Not supported in this browser\. On an iPhone or iPad/);
    await expect(p2.getByRole('checkbox', { name: 'Push to this device' })).toBeDisabled();
    await other.close();
  });
});
