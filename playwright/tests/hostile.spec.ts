// Hostile strings, tried by a real browser: whatever a session's events or a
// followed state.json carry, the board shows it as text and runs nothing —
// no script, no signal, no request beyond the page's own stream and files,
// and settings.json untouched. Host mode and follow mode both.
import { test, expect, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { postJSON, readSettingsFile, sendEvents, startHost, type Host } from './host';
import { ev, row, rowProject } from './ui';

// What a payload tries, when it runs: set a global, set a Datastar signal,
// and POST a setting.
const RUN = "(window.__pwned = 1, fetch('/agents-notch/settings', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{\"scale\": 2}'}))";
// The same without quotes, which the HTML escaping would break: backticks
// pass through markup untouched.
const RUN_BARE =
  '(window.__pwned = 1, fetch(`/agents-notch/settings`, {method: `POST`, ' +
  'headers: {[`content-type`]: `application/json`}, body: JSON.stringify({scale: 2})}))';
// Ends the current SSE data line and event with lone CRs, then sends a
// signals event Datastar would evaluate as an expression (it falls back to
// Function() for a signals payload that is not JSON).
const FRAMING = `title\revent: datastar-patch-signals\rdata: signals {_x: ${RUN_BARE}}\r\r`;
const MARKUP = `</span></li><img src=x onerror="${RUN}"><script>${RUN}</script>`;
const ATTRS = `" data-on:click="${RUN}" data-init="${RUN}`;
const DATASTAR = `@post('/agents-notch/settings') $_x {{ ${RUN} }}`;
// Short enough for a tool name (200 bytes).
const TOOL = `" data-on:click="$_x = 1" data-init="@post('/agents-notch/finish')`;

/** watch records every request the page makes after it loaded. */
function watch(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (r.isNavigationRequest() || u.pathname.startsWith('/agents-notch/static/')) return;
    seen.push(`${r.method()} ${u.pathname}${u.search}`);
  });
  return seen;
}

async function expectNothingRan(page: Page, seen: string[], host: Host) {
  // Give an injected handler time to fire (a patch, a heartbeat or two).
  await page.waitForTimeout(1500);
  expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  expect(await page.locator('#board img, #board script, #board [onerror]').count()).toBe(0);
  // The page's own requests: its stream, and its word that it is being
  // looked at (pushes: POST /looking), which no string on it can steer.
  const writes = seen.filter((s) => !s.startsWith('GET /agents-notch/stream?') && s !== 'POST /agents-notch/looking');
  expect(writes, 'no request but the page stream and its looking report').toEqual([]);
  expect(readSettingsFile(host.home)).toBeNull();
  // No stray attribute from the strings became a live Datastar attribute.
  expect(await page.locator('#board [data-init], #board [data-on\\:click]:not(.act)').count()).toBe(0);
}

test.describe('hostile strings', () => {
  let host: Host;
  test.beforeEach(async () => {
    host = await startHost();
  });
  test.afterEach(async () => {
    await host.stop();
  });

  test('host mode: a CR is refused by name; markup and expressions show as text and run nothing', async ({ page }) => {
    const id = 'hostile-host';
    // The event vocabulary refuses control characters, so the framing
    // attack cannot even enter.
    const refused = await postJSON(host.url, '/agents-notch/events', { type: 'session.opened', session: id, title: FRAMING });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toContain('title must not contain control characters');
    const opened = await postJSON(host.url, '/agents-notch/events', { type: 'session.opened', session: id });
    expect(opened.status).toBe(200);
    const reason = await postJSON(host.url, '/agents-notch/events', { type: 'approval.requested', session: id, tool: 'pwsh', reason: FRAMING });
    expect(reason.status).toBe(400);
    expect((await reason.json()).error).toContain('reason must not contain control characters');

    const seen = watch(page);
    await page.goto(host.url + '/agents-notch/');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(page.locator('#sheet')).toBeVisible();
    await sendEvents(host.url, [
      ev('session.opened', id, { title: MARKUP, project: ATTRS, cwd: '/src/' + DATASTAR }),
      ev('turn.started', id),
      ev('tool.started', id, { tool: TOOL }),
      ev('approval.requested', id, { tool: TOOL, reason: MARKUP + '\t' + DATASTAR }),
    ]);
    const r = row(page, id);
    await expect(r.locator('.title')).toHaveText(MARKUP);
    await expect(rowProject(r)).toHaveText(ATTRS);
    await expect(r.locator('.approval .tool')).toHaveText(TOOL);
    await expect(r.locator('.approval .reason')).toHaveText(MARKUP + '\t' + DATASTAR);
    await expectNothingRan(page, seen, host);
  });

  test('follow mode: a hostile state.json shows as text and runs nothing', async ({ page }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-follow-'));
    const followed = path.join(dir, 'state.json');
    const write = () => {
      const doc = {
        schema: 4,
        plugin: 'dsh-agents-notch/host',
        wallMs: Date.now(),
        hostPid: 1,
        retire: 'route',
        finishedUrl: null,
        openUrl: null,
        context: { budget: null, hotAt: 0.5 },
        settings: {
          scale: 1, screen: 'primary', anchor: 'top-center', maxRows: 6, hideFullscreen: true, opacity: 1,
          motion: 'auto', showProject: true, showDone: true, hoverMode: 'ghost', holdMs: 1600,
          topEdgeOpens: true, ghostOpacity: 0.18, alerts: 'all',
        },
        summary: { status: 'attention', working: 0, attention: 1, done: 0, error: 0, total: 1 },
        sessions: [
          {
            id: 'hostile-follow',
            title: FRAMING,
            project: MARKUP,
            cwd: ATTRS,
            status: 'attention',
            since: Date.now(),
            activity: { kind: 'tool', label: FRAMING },
            approval: { toolName: TOOL, reason: FRAMING + MARKUP },
            steps: 1,
            identity: 'teal',
            origin: '',
            parentSession: '',
            contextTokens: 0,
            errorStreak: 0,
            approvedAt: null,
          },
        ],
      };
      fs.writeFileSync(followed + '.tmp', JSON.stringify(doc));
      fs.renameSync(followed + '.tmp', followed);
    };
    write();
    const follower = await startHost(['--follow', followed]);
    const beat = setInterval(write, 500); // keep it fresh: not the unknown state
    try {
      const seen = watch(page);
      await page.goto(follower.url + '/agents-notch/');
      await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
      await expect(page.locator('#sheet')).toBeVisible();
      const r = row(page, 'hostile-follow');
      // The CRs show as U+FFFD: the text is all there, none of it framing.
      await expect(r.locator('.title')).toHaveText(FRAMING.replaceAll('\r', '\uFFFD'));
      await expect(rowProject(r)).toHaveText(MARKUP);
      await expect(r.locator('.approval .reason')).toHaveText((FRAMING + MARKUP).replaceAll('\r', '\uFFFD'));
      await expectNothingRan(page, seen, follower);
    } finally {
      clearInterval(beat);
      await follower.stop();
    }
  });
});
