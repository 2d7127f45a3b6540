// Helpers for the board and pane specs: unique session ids, event builders,
// settings resets, private hosts with a patch file, and the board's pin.
import { expect, type Page, type Locator } from '@playwright/test';
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

/** openBoard loads the board, waits for its stream, and pins it open with the keyboard. */
export async function openBoard(page: Page, base = ''): Promise<void> {
  await page.goto(`${base}/agents-notch/`);
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  await page.locator('#pin').press('Enter');
  await expect(page.locator('#pin')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('#sheet')).toBeVisible();
}

/** parseSettings parses the text of a pane settings.json (null when there is none). */
export function parseSettings(text: string | null): Record<string, unknown> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
}

/** screenshotTo saves a screenshot under test-results/ and copies it to docs/screenshots/. */
export async function screenshotTo(page: Page, name: string, fullPage = false): Promise<void> {
  const out = path.join(__dirname, '..', 'test-results', name);
  await page.screenshot({ path: out, fullPage });
  const docs = path.join(__dirname, '..', '..', 'docs', 'screenshots');
  fs.mkdirSync(docs, { recursive: true });
  fs.copyFileSync(out, path.join(docs, name));
}

export const BUDGET_PATCH = `- id: agents-notch
  config:
    scale: 1.0
    context: { budget: 1000000, hotAt: 0.5 }
`;
