// Many machines (issue 21): a hub and two machines, each a real notch-web
// with its own DSH home, paired with join codes over TLS. The hub's board
// shows both machines' rows with their labels; a machine killed with -9
// turns unknown; the pane lists the machines and revokes one, whose own
// board then says it is not connected to the hub: revoked.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HUB_BIN } from '../playwright.config';
import { postJSON, sendEvents, startHost, type Host } from './host';
import { ev, openBoard, row, rowProject } from './ui';

const shots = path.join(__dirname, '..', 'test-results', 'mesh');

function hubPort(home: string): number {
  return JSON.parse(fs.readFileSync(path.join(home, 'state', 'agents-notch', 'mesh', 'hub.json'), 'utf8')).port;
}

function pair(hub: Host): string {
  const r = spawnSync(HUB_BIN, ['pair', '--dsh-home', hub.home, '--address', `127.0.0.1:${hubPort(hub.home)}`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

test.describe('many machines', () => {
  let hub: Host, alpha: Host, beta: Host;

  test.beforeAll(async () => {
    // The hub runs the hub's build; the machines that join it, the plain one.
    hub = await startHost(['--hub', '--hub-addr', '127.0.0.1:0', '--machine', 'hub'], undefined, {}, HUB_BIN);
    alpha = await startHost(['--join', pair(hub), '--machine', 'alpha', '--approval-hold', '5m']);
    beta = await startHost(['--join', pair(hub), '--machine', 'beta']);
    await sendEvents(alpha.url, [
      ev('session.opened', 'fix-login', { cwd: '/src/webshop', title: 'Fix the login redirect' }),
      ev('turn.started', 'fix-login'),
      ev('tool.started', 'fix-login', { tool: 'Edit' }),
    ]);
    await sendEvents(beta.url, [
      ev('session.opened', 'fix-login', { cwd: '/src/infra', title: 'Terraform plan' }),
      ev('approval.requested', 'fix-login', { tool: 'Bash', reason: 'terraform apply' }),
      ev('session.opened', 'docs', { cwd: '/src/docs' }),
      ev('turn.started', 'docs'),
    ]);
  });

  test.afterAll(async () => {
    for (const h of [alpha, beta, hub]) await h?.stop();
  });

  test("a machine's held approval is answered from the hub's board", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openBoard(page, hub.url);
    // Claude Code on alpha asks; alpha holds its hook for a board's answer.
    const hook = (event: string, extra: Record<string, unknown>) =>
      postJSON(alpha.url, '/agents-notch/hooks/claude-code', { session_id: 'ship', cwd: '/src/webshop', hook_event_name: event, ...extra });
    const call = { tool_name: 'Bash', tool_input: { command: 'make deploy' }, tool_use_id: 'toolu_ship' };
    expect((await hook('PreToolUse', call)).status).toBe(200);
    const held = hook('PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make deploy' } });
    // The hub's board draws alpha's card under alpha's row, with its buttons.
    await expect(row(page, 'alpha/ship')).toHaveAttribute('data-status', 'attention');
    const card = page.locator('.card[data-session="alpha/ship"][data-state="waiting"]');
    await expect(card.locator(':is(.card-detail, .card-command)')).toHaveText('make deploy');
    await card.getByRole('button', { name: 'Allow once' }).click();
    // The answer travels to alpha, whose held hook gets Claude Code's allow.
    const res = await held;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    await expect(page.locator('.card[data-session="alpha/ship"][data-state="answered"] .card-state')).toHaveText('Allowed from the board');
    await expect(row(page, 'alpha/ship')).toHaveAttribute('data-status', 'working');
    await page.screenshot({ path: path.join(shots, 'hub-board-remote-approval.png') });
  });

  test('the hub shows both machines, labelled; a killed machine turns unknown; the pane revokes', async ({ page }) => {
    test.setTimeout(120_000); // three hosts and a presence expiry on a small machine
    await page.setViewportSize({ width: 1280, height: 800 });
    await openBoard(page, hub.url);
    // Two machines share a session id: two rows, keyed (machine, session).
    await expect(row(page, 'alpha/fix-login')).toBeVisible();
    await expect(row(page, 'beta/fix-login')).toBeVisible();
    await expect(row(page, 'beta/docs')).toBeVisible();
    await expect(rowProject(row(page, 'alpha/fix-login'))).toHaveText('alpha · webshop');
    await expect(rowProject(row(page, 'beta/fix-login'))).toHaveText('beta · infra');
    await expect(row(page, 'beta/fix-login')).toHaveAttribute('data-status', 'attention');
    await page.screenshot({ path: path.join(shots, 'hub-board-two-machines.png') });

    // kill -9 alpha: its rows stay, drawn as unknown, within 10 s.
    alpha.proc.kill('SIGKILL');
    await expect(row(page, 'alpha/fix-login')).toHaveAttribute('data-unknown', '', { timeout: 10_000 });
    await expect(row(page, 'alpha/fix-login').locator('.chip')).toHaveText('unknown');
    await expect(rowProject(row(page, 'alpha/fix-login'))).toHaveText('alpha (unknown) · webshop');
    await expect(row(page, 'beta/fix-login')).not.toHaveAttribute('data-unknown', '');
    // The tab counts alpha's rows as unknown, not as working or needing you.
    await expect(page.locator('#tab .count[data-status="unknown"]')).toHaveText('?2');
    await expect(page.locator('#tab .tab-name')).toHaveText('notch-web: 1 needs you, 1 working, 2 unknown');
    await page.screenshot({ path: path.join(shots, 'hub-board-alpha-unknown.png') });

    // The pane lists the machines: alpha unknown, beta online with its 2 sessions.
    await page.goto(`${hub.url}/agents-notch/pane`);
    const list = page.locator('#g-machines');
    await expect(list.locator('.machine[data-machine="alpha"] .machine-seen')).toHaveText(/^unknown · last seen (now|\d+s)$/);
    await expect(list.locator('.machine[data-machine="beta"]')).toHaveAttribute('data-present', '');
    await expect(list.locator('.machine[data-machine="beta"] .machine-sessions')).toHaveText('2 sessions');
    await list.scrollIntoViewIfNeeded();
    await list.screenshot({ path: path.join(shots, 'pane-machines.png') });

    // Revoke beta: asked first, then gone from the list and the board.
    page.once('dialog', (d) => {
      expect(d.message()).toContain('Revoke beta?');
      void d.accept();
    });
    await list.getByRole('button', { name: 'Revoke beta' }).click();
    await expect(list.locator('.machine[data-machine="beta"]')).toHaveCount(0);
    await list.screenshot({ path: path.join(shots, 'pane-machines-revoked.png') });
    await page.goto(`${hub.url}/agents-notch/`);
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(row(page, 'beta/docs')).toHaveCount(0);
    await expect(row(page, 'alpha/fix-login')).toBeAttached();

    // beta goes on serving its own board, which says why it is not on the hub.
    await openBoard(page, beta.url);
    await expect(page.getByRole('status').filter({ hasText: 'not connected to the hub: revoked' })).toBeVisible();
    await expect(row(page, 'docs')).toBeAttached();
    await page.screenshot({ path: path.join(shots, 'machine-board-revoked.png') });
  });
});
