// Helpers for the board and pane specs: unique session ids, event builders,
// settings resets, private hosts with a patch file, and the board's pin.
import { expect, type Frame, type Page, type Locator } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { postJSON, sendEvents, startHost, type Host } from './host';

let seq = 0;

/** uid returns a session id no other test (or earlier run) uses. */
export function uid(prefix: string): string {
  seq += 1;
  return `${prefix}-${Date.now().toString(36)}-${seq}`;
}

/** ev builds one session event. */
export function ev(type: string, session: string, fields: Record<string, unknown> = {}): object {
  return { type, session, ...fields };
}

/** resetSettings clears the pane layer of a host and fails loudly if refused. */
export async function resetSettings(base: string): Promise<void> {
  const res = await postJSON(base, '/agents-notch/settings', { reset: true });
  expect(res.status).toBe(200);
}

/** setSettings posts keys the way a script would. */
export async function setSettings(base: string, keys: Record<string, unknown>): Promise<void> {
  const res = await postJSON(base, '/agents-notch/settings', keys);
  expect(res.status, await res.clone().text()).toBe(200);
}

/** finish closes sessions out through the events route, to leave a shared board tidy. */
export async function finish(base: string, ...ids: string[]): Promise<void> {
  await sendEvents(base, ids.map((id) => ev('session.finished', id)));
}

/** startHostWithPatch starts a private host whose DSH home holds cordis.patch.yml. */
export async function startHostWithPatch(yaml: string, args: string[] = []): Promise<Host> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-pw-'));
  fs.writeFileSync(path.join(home, 'cordis.patch.yml'), yaml);
  return startHost(args, home);
}

/** writePatch replaces a host's patch file (a hand edit of the YAML row). */
export function writePatch(home: string, yaml: string): void {
  const p = path.join(home, 'cordis.patch.yml');
  fs.writeFileSync(p + '.tmp', yaml);
  fs.renameSync(p + '.tmp', p);
}

/** row is the board row of a session. */
export function row(page: Page, id: string): Locator {
  return page.locator(`#board .row[data-session-id="${id}"]`);
}

/**
 * rowProject is the project a row is shown under: its group's heading (the
 * row itself repeats it only when it is not the group's).
 */
export function rowProject(r: Locator): Locator {
  return r.locator('xpath=ancestor::div[@role="group"][1]').locator('.group-name');
}

/** openBoard loads the board and waits for its stream: a browser tab opens it unfolded. */
export async function openBoard(page: Page, base = ''): Promise<void> {
  await page.goto(`${base}/agents-notch/`);
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  await expect(page.locator('#tab')).toHaveAttribute('aria-expanded', 'true');
  await expect(page.locator('#sheet')).toBeVisible();
}

/** foldBoard folds a browser tab's board with a click on its tab. */
export async function foldBoard(page: Page): Promise<void> {
  await page.locator('#tab').click();
  await expect(page.locator('#tab')).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('#sheet')).toBeHidden();
}

/** parseSettings parses the text of a pane settings.json (null when there is none). */
export function parseSettings(text: string | null): Record<string, unknown> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * screenshotTo saves a screenshot under test-results/ (git-ignored): a test
 * run leaves the tree clean. The README's images come from `make screenshots`
 * (tests/screenshots.spec.ts), never from `make test`.
 */
export async function screenshotTo(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: path.join(__dirname, '..', 'test-results', name), fullPage });
}

/**
 * seedDesk posts a realistic desk of sessions — several projects, a
 * subagent, a question, an error streak, a failure, a finished one, context
 * towards amber — each event minutes ago and in order, so the rows' relative
 * times differ as they would. Ids start with `shot-`.
 */
export async function seedDesk(base: string): Promise<string[]> {
  const S = (name: string) => `shot-${name}`;
  const start: Record<string, number> = {
    hub: 14 * 60, survey: 9 * 60, docs: 6 * 60, argon: 22 * 60, bill: 31 * 60, release: 48 * 60, scratch: 40,
  };
  const step: Record<string, number> = {};
  const timed = (e: object) => {
    const name = (e as { session: string }).session.slice('shot-'.length);
    step[name] = (step[name] ?? 0) + 1;
    const ago = Math.max(1, start[name] - step[name] * (start[name] > 600 ? 97 : 23));
    return { ...e, at: Date.now() - ago * 1000 };
  };
  const events = [
    ev('session.opened', S('hub'), { cwd: '/home/dev/src/notch-web', title: 'Wire the SSE hub to the board' }),
    ev('turn.started', S('hub')),
    ev('tool.started', S('hub'), { tool: 'grep' }),
    ev('tool.ended', S('hub'), { tool: 'grep', outcome: 'ok' }),
    ev('tool.started', S('hub'), { tool: 'edit' }),
    ev('tool.ended', S('hub'), { tool: 'edit', outcome: 'ok' }),
    ev('tool.started', S('hub'), { tool: 'go test ./web/...' }),
    ev('context.tokens', S('hub'), { tokens: 612034 }),
    ev('session.opened', S('survey'), {
      cwd: '/home/dev/src/notch-web',
      title: 'Survey Datastar patch semantics',
      origin: 'subagent',
      parent: S('hub'),
    }),
    ev('turn.started', S('survey')),
    ev('tool.started', S('survey'), { tool: 'web_fetch' }),
    ev('tool.ended', S('survey'), { tool: 'web_fetch', outcome: 'ok' }),
    ev('context.tokens', S('survey'), { tokens: 48200 }),
    ev('session.opened', S('docs'), { cwd: '/home/dev/notes', project: 'dsh-docs', title: 'Refresh the protocol page' }),
    ev('turn.started', S('docs')),
    ev('tool.started', S('docs'), { tool: 'read_file' }),
    ev('tool.ended', S('docs'), { tool: 'read_file', outcome: 'ok' }),
    ev('approval.requested', S('docs'), { tool: 'web_fetch', reason: 'GET https://example.com/protocol/v2' }),
    ev('context.tokens', S('docs'), { tokens: 64000 }),
    ev('session.opened', S('argon'), { cwd: 'C:\\Users\\me\\Projects\\blindKnifeArgon', title: 'Argon 0/4 on laptop — fix' }),
    ev('turn.started', S('argon')),
    ev('tool.started', S('argon'), { tool: 'bash' }),
    ev('tool.ended', S('argon'), { tool: 'bash', outcome: 'error' }),
    ev('tool.started', S('argon'), { tool: 'bash' }),
    ev('tool.ended', S('argon'), { tool: 'bash', outcome: 'error' }),
    ev('context.tokens', S('argon'), { tokens: 210000 }),
    ev('session.opened', S('bill'), { cwd: '/srv/billing-api/', title: 'Migrate the invoices table' }),
    ev('turn.started', S('bill')),
    ev('tool.started', S('bill'), { tool: 'psql' }),
    ev('tool.ended', S('bill'), { tool: 'psql', outcome: 'error' }),
    ev('turn.ended', S('bill'), { outcome: 'error' }),
    ev('context.tokens', S('bill'), { tokens: 90000 }),
    ev('session.opened', S('release'), { cwd: '/home/dev/src/notch-web', title: 'Tag v0.4 and write the notes' }),
    ev('turn.started', S('release')),
    ev('tool.started', S('release'), { tool: 'git' }),
    ev('tool.ended', S('release'), { tool: 'git', outcome: 'ok' }),
    ev('tool.started', S('release'), { tool: 'gh release create' }),
    ev('tool.ended', S('release'), { tool: 'gh release create', outcome: 'ok' }),
    ev('turn.ended', S('release'), { outcome: 'completed' }),
    ev('context.tokens', S('release'), { tokens: 96000 }),
    ev('session.opened', S('scratch'), { cwd: '/home/dev/src/scratch' }),
    ev('turn.started', S('scratch')),
  ];
  await sendEvents(base, events.map(timed));
  return Object.keys(start).map(S);
}

/**
 * seedDay posts a day with twenty sessions in five projects — questions,
 * a failure, work under way and finished work, context filling — and what
 * notch-web statusline would post for the plan. Ids start with `day-`.
 */
export async function seedDay(base: string): Promise<void> {
  const projects: Array<[string, string[]]> = [
    ['notch-web', ['Wire the SSE hub to the board', 'Group rows by project', 'Fold finished rows', 'Tag v0.5']],
    ['billing-api', ['Migrate the invoices table', 'Retry failed webhooks', 'Audit the VAT rounding', 'Bump pgx']],
    ['dsh-docs', ['Refresh the protocol page', 'Draw the state diagram', 'Fix broken anchors', 'Spell-check']],
    ['mobile', ['Crash on cold start (iOS 19)', 'Dark mode tokens', 'Offline queue', 'Release notes']],
    ['infra', ['Rotate the staging certs', 'Terraform drift', 'Grafana alerts', 'Node pool upgrade']],
  ];
  const events: object[] = [];
  const at = (minsAgo: number) => Date.now() - minsAgo * 60_000;
  // Each project's first session (working, a tool out) and one finished
  // OpenCode session come through their agents' own hooks, as those agents
  // post them, so their rows wear the agents' badges.
  const hooked: Array<[string, string, string]> = [];
  const late: object[] = [];
  projects.forEach(([p, titles], pi) => {
    titles.forEach((title, k) => {
      const id = `day-${p}-${k}`;
      const t0 = 90 - pi * 7 - k * 5;
      const n = 30000 + 37000 * ((pi + k) % 5);
      if (k === 0 || (pi === 4 && k === 2)) {
        hooked.push([k === 0 ? HOOKED_AGENTS[pi] : 'opencode', id, title]);
        late.push(ev('context.tokens', id, { tokens: n }));
        return;
      }
      events.push(
        ev('session.opened', id, { cwd: `/home/dev/src/${p}`, title, at: at(t0) }),
        ev('turn.started', id, { at: at(t0 - 1) }),
        ev('tool.started', id, { tool: ['bash', 'edit', 'grep', 'go test ./...'][k], at: at(t0 - 2) }),
        ev('context.tokens', id, { tokens: n, at: at(t0 - 2) }),
      );
      if (k >= 2) events.push(ev('turn.ended', id, { outcome: 'completed', at: at(t0 - 3) }));
      else if (k === 1 && pi % 2 === 0) events.push(ev('approval.requested', id, { tool: 'bash', reason: 'rm -rf build/', at: at(t0 - 3) }));
      else if (k === 1 && pi === 1) events.push(ev('turn.ended', id, { outcome: 'error', at: at(t0 - 3) }));
    });
  });
  await sendEvents(base, events);
  for (const [agent, id, title] of hooked) {
    const cwd = `/home/dev/src/${projects.find(([p]) => id.startsWith(`day-${p}-`))![0]}`;
    for (const body of agentHooks(agent, id, cwd, title)) {
      const res = await postJSON(base, `/agents-notch/hooks/${agent}`, body);
      expect(res.status, `${agent} ${JSON.stringify(body)}`).toBe(200);
    }
  }
  await sendEvents(base, late);
  const resets = Math.floor(Date.now() / 1000);
  for (const [i, id] of ['day-notch-web-0', 'day-billing-api-0', 'day-mobile-0'].entries()) {
    const res = await postJSON(base, '/agents-notch/statusline', {
      session: id,
      fiveHour: { usedPct: 37, resetsAt: resets + 2 * 3600 + 900 },
      sevenDay: { usedPct: 61, resetsAt: resets + 3 * 86400 },
      costUsd: 1.2 + i,
      contextWindow: { size: 200000, usedPct: 20 + 25 * i },
    });
    expect(res.status).toBe(200);
  }
}

/** HOOKED_AGENTS is the agent of each seeded project's first session. */
const HOOKED_AGENTS = ['claude-code', 'codex', 'gemini', 'copilot', 'qwen'];

/**
 * agentHooks is a session's hooks as its agent posts them (the shapes of
 * adapters/<agent>/testdata): a start, the prompt (its title), and a tool
 * call going out — or, for OpenCode's plugin, a turn that ends.
 */
function agentHooks(agent: string, id: string, cwd: string, title: string): object[] {
  if (agent === 'opencode') {
    const e = (name: string, properties: object) => ({ hook_event_name: name, session_id: id, parent_id: '', cwd, properties });
    return [
      e('session.created', { title: 'New session' }),
      e('session.status', { status: { type: 'busy' } }),
      e('session.updated', { title }),
      e('session.status', { status: { type: 'idle' } }),
      e('session.idle', {}),
    ];
  }
  const base = { session_id: id, cwd, permission_mode: 'default' };
  if (agent === 'gemini') {
    return [
      { ...base, hook_event_name: 'SessionStart', source: 'startup' },
      { ...base, hook_event_name: 'BeforeAgent', prompt: title },
      { ...base, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'make lint' } },
    ];
  }
  return [
    { ...base, hook_event_name: 'SessionStart', source: 'startup' },
    { ...base, hook_event_name: 'UserPromptSubmit', prompt: title },
    { ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'go test ./...' }, tool_use_id: `call-${id}` },
  ];
}

/** DESK_PATCH is the row the desk is shown with: a real budget, room for every row. */
export const DESK_PATCH = `- id: agents-notch
  config:
    maxRows: 8
    context: { budget: 1000000, hotAt: 0.5 }
`;

export const BUDGET_PATCH = `- id: agents-notch
  config:
    scale: 1.0
    context: { budget: 1000000, hotAt: 0.5 }
`;

/**
 * layoutProblems measures element boxes (never pixels) under root and lists
 * what a reader would see as broken: the document scrolling sideways, a box
 * past the viewport, text cut by a clipping ancestor or cut without an
 * ellipsis, and text ended in an ellipsis that cannot be read whole (it
 * must carry data-clipped: the tip on hover and focus). Screen-reader-only
 * text and hidden elements are skipped.
 */
export async function layoutProblems(target: Page | Frame, rootSelector: string): Promise<string[]> {
  return target.evaluate((sel) => {
    const out: string[] = [];
    const doc = document.documentElement;
    const vw = doc.clientWidth;
    if (doc.scrollWidth > vw + 1) out.push(`the page scrolls sideways: ${doc.scrollWidth} > ${vw}`);
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    const root = document.querySelector(sel);
    if (!root) return [`no ${sel}`];
    for (const e of [root, ...root.querySelectorAll('*')]) {
      if (e.closest('.sr-only, svg, #tip, [hidden]')) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const cs = getComputedStyle(e);
      if (cs.visibility === 'hidden') continue;
      const text = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
      const cut = text && (e as HTMLElement).scrollWidth > (e as HTMLElement).clientWidth + 1 && cs.overflowX !== 'visible';
      if (cut && cs.textOverflow !== 'ellipsis') out.push(`${name(e)} is cut without an ellipsis`);
      if (cut && cs.textOverflow === 'ellipsis' && !e.closest('[data-clipped]')) out.push(`${name(e)} ends in an ellipsis with no way to read it whole`);
      // The nearest ancestor that clips and that this box does not fit in.
      let clip: Element | null = null;
      for (let a = e.parentElement; a && a !== doc; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const ar = a.getBoundingClientRect();
        if (r.right > ar.right + 1 || r.left < ar.left - 1) {
          clip = a;
          break;
        }
      }
      if (!clip) {
        if (r.right > vw + 1 || r.left < -1) out.push(`${name(e)} is past the viewport (${r.left.toFixed(0)}…${r.right.toFixed(0)} of ${vw})`);
      } else if (getComputedStyle(clip).textOverflow === 'ellipsis') {
        // inside a piece that ends in an ellipsis: fine if it can be read whole
        if (!clip.closest('[data-clipped]')) out.push(`${name(clip)} ends in an ellipsis with no way to read it whole`);
      } else if (text) {
        out.push(`${name(e)} is cut by ${name(clip)}`);
      }
    }
    return out;
  }, rootSelector);
}

/** expectAxeClean fails on any serious or critical axe violation on the page (frames included). */
export async function expectAxeClean(page: Page, state: string): Promise<void> {
  const res = await new AxeBuilder({ page }).analyze();
  const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `axe, ${state}`).toEqual([]);
}
