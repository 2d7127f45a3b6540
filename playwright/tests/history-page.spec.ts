// The History page (GET /agents-notch/history) on a host of its own with a
// seeded history: search, filters, unfolding, the charts at 1280 and 390
// px, live updates, keyboard only, axe.
import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { type Host, sendEvents, startHost } from './host';
import { seedHistory, todayBase } from './history-seed';

let host: Host;
test.beforeAll(async () => {
  host = await startHost();
  await seedHistory(host.url);
});
test.afterAll(async () => {
  await host?.stop();
});

const open = async (page: Page, query = '') => {
  await page.goto(`${host.url}/agents-notch/history${query}`);
  await expect(page.locator('#hist-live')).toBeVisible();
};

const rows = (page: Page) => page.locator('#hist-list details.hs');

// First, while the seed's writes are fresh: the bars count what the list
// shows (the README's page once showed today's bars at 0 beside 29
// sessions, the days' totals not rebuilt yet). The writer's rebuild may
// have run before the page opens, so this does not always catch that lag:
// Go's TestTheBarsAgreeWithTheList does.
test('the bars count the sessions the list shows', async ({ page }) => {
  await page.route('**/history/stream*', (r) => r.abort()); // the page as served, no live patch
  await open(page);
  await expect(page.locator('#hist-shown')).toHaveText(/^1–29 of 29$/);
  // As the page was served, not after a live patch: read once, no retry.
  expect(await page.locator('figure[data-metric="sessions"] .bc-total').textContent()).toMatch(/^29 in all · most /);
  expect(await page.locator('figure[data-metric="turns"] .bc-total').textContent()).toMatch(/^29 in all · most /);
});

test('the board and the pane link the page', async ({ page }) => {
  await page.goto(`${host.url}/agents-notch/`);
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page).toHaveURL(/\/agents-notch\/history$/);
  await page.goto(`${host.url}/agents-notch/pane`);
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page.locator('h1')).toHaveText('History');
});

test('search, filters and paging are a GET form', async ({ page }) => {
  await open(page);
  await expect(page.locator('#hist-shown')).toHaveText(/^1–29 of 29$/);
  await page.getByLabel('Search', { exact: true }).fill('flaky');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/[?&]q=flaky/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first().locator('.hs-title')).toHaveText('Fix the flaky upload test');
  // The project filter: today's upload fix and two nights' sessions in /src/uploads.
  await page.getByLabel('Search', { exact: true }).fill('');
  await page.getByLabel('Project').selectOption('uploads');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/[?&]project=uploads/);
  await expect(rows(page)).toHaveCount(3);
  await page.getByLabel('Project').selectOption('');

  // Outcome and day, from the form's own controls.
  await page.getByLabel('Search', { exact: true }).fill('');
  await page.getByLabel('Outcome').selectOption('error');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first().locator('.hs-outcome')).toHaveText('error');
  await page.getByRole('link', { name: 'Clear the search' }).click();
  await expect(page).toHaveURL(/\/history$/);

  const today = new Date(todayBase());
  const iso = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
  await open(page, `?day=${iso}`);
  await expect(page.locator('#hf-day')).toHaveValue(iso);
  await expect(rows(page)).toHaveCount(4);
  await expect(page.locator('#tl-h')).toContainText(today.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short' }).replace(',', ''));

  // A query that does not parse says why.
  const res = await page.goto(`${host.url}/agents-notch/history?day=soon`);
  expect(res!.status()).toBe(400);
  await expect(page.locator('body')).toContainText('day must be YYYY-MM-DD');
});

test('a session unfolds to its turns and answers, and stays unfolded through a live patch', async ({ page }) => {
  await open(page);
  const s = rows(page).filter({ hasText: 'Write the History page' });
  await expect(s).toHaveCount(1);
  await expect(s.locator('.hs-body')).toBeHidden();
  await s.locator('summary').click();
  await expect(s.locator('table.hs-turns-table tbody tr')).toHaveCount(1);
  await expect(s.locator('table.hs-turns-table')).toContainText('Bash ×1');
  await expect(s.locator('.hs-outcome')).toHaveText('open');

  // Live: a new session arrives through the store's wake-up; the open one
  // stays open.
  const at = Date.now();
  await sendEvents(host.url, [
    { v: 2, type: 'session.opened', session: 'hp-live', title: 'Arrived while you looked', cwd: '/src/live', at },
    { v: 2, type: 'turn.started', session: 'hp-live', at: at + 1 },
  ]);
  await expect(rows(page).first().locator('.hs-title')).toHaveText('Arrived while you looked', { timeout: 10_000 });
  await expect(s).toHaveAttribute('open', '');
  await expect(s.locator('.hs-body')).toBeVisible();
});

test('hostile text is text, bounded', async ({ page }) => {
  let alerted = false;
  page.on('dialog', (d) => {
    alerted = true;
    void d.dismiss();
  });
  await open(page, '?q=gnp');
  const t = rows(page).first().locator('.hs-title');
  await expect(t).toContainText('<img src=x onerror=alert(1)>');
  const text = (await t.textContent())!;
  expect(text).not.toContain('\u202e');
  expect(text.length).toBeLessThanOrEqual(160);
  expect(await page.locator('#hist-list img').count()).toBe(0);
  expect(alerted).toBe(false);
});

for (const [width, height] of [
  [1280, 800],
  [390, 844],
] as const) {
  test.describe(`${width} px`, () => {
    test.use({ viewport: { width, height } });

    test('the day in pictures: headline, timeline, bars, each with a table', async ({ page }, info) => {
      await open(page);
      await expect(page.locator('.hl-main .hl-num')).toHaveText(/\d+ (s|min|h)/);
      await expect(page.locator('.hl-stat').nth(2)).toContainText('Fix the flaky upload test');
      const tl = page.locator('svg.tl');
      await expect(tl).toHaveAttribute('role', 'img');
      await expect(tl.locator('text.lane-name')).toHaveCount(5);
      await expect(tl.locator('rect.band[data-status="attention"]').first()).toBeVisible();
      await expect(page.locator('svg.bc')).toHaveCount(5); // no cost reported: no cost chart
      await expect(page.locator('#hist-bars')).toContainText('No cost: no agent reported one');
      // Nothing runs past the page's width.
      const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(over).toBeLessThanOrEqual(0);
      // The tables behind the charts.
      await page.getByText('The day as a table').click();
      await expect(page.locator('#hist-day table tbody tr').first()).toBeVisible();
      await page.getByText(/The 30 days as a table/).click();
      await expect(page.locator('#hist-bars table tbody tr')).toHaveCount(30);
      await page.getByText('The day as a table').click();
      await page.getByText(/The 30 days as a table/).click();
      await page.screenshot({ path: info.outputPath(`history-page-${width}.png`), fullPage: true });
    });
  });
}

test('keyboard only, with focus in sight; axe finds nothing serious', async ({ page }) => {
  test.slow(); // an axe scan
  await open(page);
  // Tab from the top: the links, the search box, the filters, then on to
  // the first session's summary; Enter unfolds it.
  const seen: string[] = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const cs = getComputedStyle(el);
      return { tag: el.tagName, id: el.id, cls: el.className, style: `${cs.outlineStyle} ${cs.outlineWidth} focus=${el.matches(':focus')} fv=${el.matches(':focus-visible')} doc=${document.hasFocus()}`, outline: cs.outlineStyle !== 'none' && cs.outlineWidth !== '0px', summary: el.tagName === 'SUMMARY' && !!el.closest('.hs') };
    });
    expect(f.outline, `focus on ${f.tag}#${f.id}.${f.cls} is not drawn (${f.style})`).toBe(true);
    seen.push(f.id || f.tag);
    if (f.summary) break;
  }
  expect(seen).toContain('hf-q');
  expect(seen).toContain('hf-outcome');
  const first = rows(page).first();
  await expect(first.locator('summary')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(first).toHaveAttribute('open', '');
  await page.keyboard.press('Enter');
  await expect(first).not.toHaveAttribute('open', '');
  // The search from the keyboard.
  await page.locator('#hf-q').focus();
  await page.keyboard.type('parser');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/q=parser/);
  await expect(rows(page)).toHaveCount(1);

  await open(page);
  await rows(page).first().locator('summary').click();
  await page.getByText('The day as a table').click();
  const axe = await new AxeBuilder({ page }).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);
});
