// Why it stopped: a Claude Code turn that hit a usage limit (its StopFailure,
// as Claude Code posts it) leaves an error row that says so — its kind, when
// it resumes (in this viewer's clock, counting down) and Claude Code's own
// words — at 1280 and at 390 px, axe clean; the next prompt forgets it.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { postJSON, startHost, type Host } from './host';
import { row } from './ui';

const SESSION = '5c0ffee0-3f0c-4d5e-8a21-6c7f0e9d2b51';

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

test.describe('why a row stopped', () => {
  let host: Host;
  test.beforeAll(async () => {
    host = await startHost(['--approvals', 'off']);
  });
  test.afterAll(async () => {
    await host.stop();
  });

  async function send(body: Record<string, unknown>) {
    const res = await postJSON(host.url, '/agents-notch/hooks/claude-code', body);
    expect(res.status).toBe(200);
  }

  test('a usage limit says so, and when it resumes', async ({ page }) => {
    test.slow(); // axe scans
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(host.url + '/agents-notch/');
    await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
    await send(hook('SessionStart', { source: 'startup' }));
    await send(hook('UserPromptSubmit', { prompt: 'Port the parser to the new API' }));
    await send(
      hook('StopFailure', {
        error: 'rate_limit',
        last_assistant_message: "API Error: Request rejected (429) · You've hit your limit. Please try again in 2h 5m <b>now</b>",
      }),
    );
    const r = row(page, SESSION);
    await expect(r).toHaveAttribute('data-status', 'error');
    const why = r.locator('.why');
    await expect(why).toHaveAttribute('data-why', 'limit');
    await expect(why.locator('.why-kind')).toHaveText('usage limit');
    // The reset, in this viewer's clock, counting down.
    const at = new Date(Date.now() + (2 * 60 + 5) * 60_000);
    const hm = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    await expect(why.locator('.why-reset')).toHaveText(new RegExp(`^resumes (${hm}|\\d\\d:\\d\\d) · in 2h [45]m$`));
    // The agent's words as text, markup and all, whole in the tooltip.
    await expect(why.locator('.why-words')).toContainText('<b>now</b>');
    await expect(why.locator('.why-words')).toHaveAttribute('title', /try again in 2h 5m <b>now<\/b>$/);
    await expect(why.locator('.why-kind')).toBeVisible();
    await expect(why.locator('.why-reset')).toBeVisible();

    const scan = async (what: string) => {
      const axe = await new AxeBuilder({ page }).include('#board').analyze();
      const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `axe, ${what}`).toEqual([]);
    };
    await scan('an error row with its why at 1280 px');
    if (process.env.NOTCH_LOOK) await page.screenshot({ path: process.env.NOTCH_LOOK + '-1280.png' });

    // On a phone the kind and the reset stay in sight; the words give way.
    await page.setViewportSize({ width: 390, height: 700 });
    await expect(why.locator('.why-kind')).toBeVisible();
    await expect(why.locator('.why-reset')).toBeInViewport();
    await scan('an error row with its why at 390 px');
    if (process.env.NOTCH_LOOK) await page.screenshot({ path: process.env.NOTCH_LOOK + '-390.png' });

    // The next prompt forgets it.
    await send(hook('UserPromptSubmit', { prompt: 'again' }));
    await expect(r).toHaveAttribute('data-status', 'working');
    await expect(r.locator('.why')).toHaveCount(0);
  });
});
