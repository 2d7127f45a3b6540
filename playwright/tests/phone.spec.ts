// Right on a phone (390 × 844) and at a desk (1280): nothing is cut without
// an ellipsis, nothing scrolls sideways, what ends in an ellipsis can be read
// whole on hover and on focus, the status chips line up, and the pane's
// narrow layout keeps its lines together. Boxes are measured, never pixels.
import { test, expect, type Page } from '@playwright/test';
import { type Host } from './host';
import { DESK_PATCH, expectAxeClean, layoutProblems, openBoard, row, seedDesk, startHostWithPatch, rowProject } from './ui';

let host: Host;
test.beforeAll(async () => {
  host = await startHostWithPatch(DESK_PATCH);
  await seedDesk(host.url);
});
test.afterAll(async () => {
  await host?.stop();
});

async function chipEdges(page: Page, side: 'left' | 'right'): Promise<number[]> {
  return page.locator('#board .row .chip').evaluateAll((els, s) => els.map((e) => Math.round(e.getBoundingClientRect()[s])), side);
}

for (const [width, height] of [
  [390, 844],
  [1280, 720],
] as const) {
  test.describe(`at ${width} × ${height}`, () => {
    test.use({ viewport: { width, height } });

    test('the board, folded and open: nothing cut, nothing sideways; the chips line up', async ({ page }) => {
      test.slow(); // two axe scans
      await openBoard(page, host.url);
      await expect(page.locator('#board .row')).toHaveCount(7);
      expect(await layoutProblems(page, '#notch')).toEqual([]);
      await expectAxeClean(page, `board open at ${width}`);
      // rows with a ✕ (done, failed) and without one line their chips up: at
      // their end in the notch, in their column (its start) on the dashboard
      const edges = await chipEdges(page, width >= 1024 ? 'left' : 'right');
      expect(new Set(edges).size, `chip edges ${edges}`).toBe(1);
      // folded, the legend shown by keyboard focus
      await page.keyboard.press('Tab');
      await expect(page.locator('#tab')).toBeFocused();
      await page.keyboard.press('Enter');
      await expect(page.locator('#tab .legend')).toBeVisible();
      expect(await layoutProblems(page, '#notch')).toEqual([]);
      await expectAxeClean(page, `board folded at ${width}`);
      await page.keyboard.press('Enter');
      // the done row's sub line: the step count whole, not "2 step"
      const steps = row(page, 'shot-release').locator('.steps');
      await expect(steps).toHaveText('2 steps');
      expect(await steps.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    });

    test('the Settings pane: nothing cut, nothing sideways; its lines keep together', async ({ page }) => {
      await page.goto(host.url + '/agents-notch/pane');
      await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
      expect(await layoutProblems(page, 'main')).toEqual([]);
      await expectAxeClean(page, `pane at ${width}`);
      // the "desktop window" pill never breaks over two lines
      for (const pill of await page.locator('.window-only').all()) {
        expect(await pill.evaluate((e) => e.getClientRects().length)).toBe(1);
        expect(await pill.evaluate((e) => e.getBoundingClientRect().height)).toBeLessThan(24);
      }
      if (width < 500) {
        // one column: the value/badge/Reset line starts where the label does
        for (const s of await page.locator('.setting').all()) {
          const [label, value] = await Promise.all([
            s.locator('.setting-name').evaluate((e) => e.getBoundingClientRect().left),
            s.locator('.value').evaluate((e) => e.getBoundingClientRect().left),
          ]);
          expect(Math.abs(label - value)).toBeLessThanOrEqual(1);
        }
        // "From the plugin row": each fact has the whole width, not a squeezed column
        const [dl, dd] = await Promise.all([
          page.locator('.facts dl').evaluate((e) => e.getBoundingClientRect().width),
          page.locator('#fact-retire').evaluate((e) => e.getBoundingClientRect().width),
        ]);
        expect(dd).toBeGreaterThan(dl * 0.9);
      }
    });
  });
}

test.describe('at 390 × 844, text cut short', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('a title that ends in an ellipsis shows whole on focus (a tap) and on hover', async ({ page }) => {
    await openBoard(page, host.url);
    const title = row(page, 'shot-hub').locator('.title');
    await expect(title).toHaveAttribute('data-clipped', '');
    await expect(title).toHaveAttribute('tabindex', '0');
    const tip = page.locator('#tip');
    await title.focus();
    await expect(tip).toBeVisible();
    await expect(tip).toHaveText('Wire the SSE hub to the board');
    await expectAxeClean(page, 'a truncated title focused, its tip shown');
    const [t, r] = await Promise.all([tip.boundingBox(), page.locator('html').evaluate((e) => e.clientWidth)]);
    expect(t!.x).toBeGreaterThanOrEqual(0);
    expect(t!.x + t!.width).toBeLessThanOrEqual(r);
    await page.keyboard.press('Escape');
    await expect(tip).toBeHidden();
    // a tap focuses it on a phone
    await row(page, 'shot-bill').locator('.bot').click();
    await expect(tip).toBeHidden();
    await row(page, 'shot-release').locator('.title').hover();
    await expect(tip).toHaveText('Tag v0.4 and write the notes');
    // text that fits is left alone
    await expect(rowProject(row(page, 'shot-scratch'))).not.toHaveAttribute('data-clipped', '');
    await expect(rowProject(row(page, 'shot-scratch'))).not.toHaveAttribute('tabindex', /.*/);
  });
});
