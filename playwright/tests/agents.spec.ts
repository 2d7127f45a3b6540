// Agents in: a Claude Code session, replayed as Claude Code's own http hooks
// post it, drives its row on the board in a real browser — working, needs
// you, working again once the tool runs, done at Stop; the process's end
// (SessionEnd) settles the row and it stays until the ✕ closes it out.
import { test, expect } from '@playwright/test';
import { postJSON, startHost, type Host } from './host';
import { row, rowProject } from './ui';

const SESSION = '9b1de7a4-3f0c-4d5e-8a21-6c7f0e9d2b13';

/** hook is one Claude Code hook payload, as Claude Code sends it. */
function hook(event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: SESSION,
    transcript_path: `/home/me/.claude/projects/-home-me-src-argon/${SESSION}.jsonl`,
    cwd: '/home/me/src/argon',
    permission_mode: 'default',
    hook_event_name: event,
    ...extra,
  };
}

const bash = { tool_name: 'Bash', tool_input: { command: 'rm -rf build', description: 'Clean the build' }, tool_use_id: 'toolu_01' };

test.describe('a replayed Claude Code session', () => {
  let host: Host;
  test.beforeAll(async () => {
    // Approvals from the board off: every hook, PermissionRequest too, is
    // answered at once and empty (approvals.spec.ts holds them).
    host = await startHost(['--approvals', 'off']);
  });
  test.afterAll(async () => {
    await host.stop();
  });

  async function send(body: Record<string, unknown>) {
    const res = await postJSON(host.url, '/agents-notch/hooks/claude-code', body);
    expect(res.status).toBe(200);
    expect(await res.text(), 'a hook is answered with an empty body, never a decision').toBe('');
  }

  test('drives its row working → needs you → working → done', async ({ page }) => {
    await page.goto(host.url + '/agents-notch/');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await expect(page.locator('#sheet')).toBeVisible(); // a tab opens the board unfolded

    // A session start opens the row idle (done: waiting for a prompt), never working.
    await send(hook('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' }));
    const r = row(page, SESSION);
    await expect(r).toHaveAttribute('data-status', 'done');
    await expect(rowProject(r)).toHaveText('argon');
    // Which agent it is: its badge, its name the tooltip and what a screen reader hears.
    await expect(r.locator('.agent-mark')).toHaveText('CC');
    await expect(r.locator('.agent-mark')).toBeVisible();
    await expect(r.locator('.agent')).toHaveAttribute('title', 'Claude Code');
    await expect(r.locator('.agent-name')).toHaveText('Claude Code');
    if (process.env.NOTCH_LOOK) {
      await page.screenshot({ path: process.env.NOTCH_LOOK + '-1280.png' });
      await page.setViewportSize({ width: 390, height: 500 });
      await page.screenshot({ path: process.env.NOTCH_LOOK + '-390.png' });
    }

    await send(hook('UserPromptSubmit', { prompt: 'Clean and rebuild' }));
    await expect(r).toHaveAttribute('data-status', 'working');
    await send(hook('PreToolUse', bash));
    await expect(r.locator('.activity[data-kind="tool"]')).toContainText('Bash');

    await send(hook('PermissionRequest', { tool_name: 'Bash', tool_input: bash.tool_input, permission_suggestions: [] }));
    await expect(r).toHaveAttribute('data-status', 'attention');
    await expect(r.locator('.approval .tool')).toHaveText('Bash');
    await expect(r.locator('.approval .reason')).toHaveText('Clean the build');
    await expect(page.locator('#tab')).toHaveAccessibleName(/needs you/);

    // The human allowed it at the terminal: the tool runs.
    await send(hook('PostToolUse', { ...bash, tool_response: { stdout: '', stderr: '', interrupted: false } }));
    await expect(r).toHaveAttribute('data-status', 'working');
    await expect(r.locator('.approval')).toHaveCount(0);

    await send(hook('Stop', { stop_hook_active: false }));
    await expect(r).toHaveAttribute('data-status', 'done');
    await expect(r.locator('.chip')).toHaveText('done');

    // The permission_prompt notification comes ~6 s after the prompt, here
    // after the Stop: no prompt is open, the row stays done.
    await send(hook('Notification', { message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt' }));
    await expect(r).toHaveAttribute('data-status', 'done');

    // The process ends: the row settles (done after its Stop) and stays.
    await send(hook('SessionEnd', { reason: 'prompt_input_exit' }));
    await expect(r).toHaveAttribute('data-status', 'done');
    // A hook that straggles in after the end moves nothing.
    await send(hook('UserPromptSubmit', { prompt: 'late' }));
    await expect(r).toHaveAttribute('data-status', 'done');

    await r.locator('.act.close').click();
    await expect(r).toHaveCount(0);
  });
});
