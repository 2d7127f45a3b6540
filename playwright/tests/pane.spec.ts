// The Settings pane, driven through the real binary: each interaction posts
// exactly one key; the layers show where each value comes from; changes made
// elsewhere appear without a reload.
import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { BASE, readSettingsFile, sendEvents, type Host } from './host';
import { ev, finish, parseSettings, resetSettings, setSettings, startHostWithPatch, uid, writePatch } from './ui';

async function openPane(page: Page, base = ''): Promise<void> {
  await page.goto(`${base}/agents-notch/pane`);
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
}

const setting = (page: Page, key: string) => page.locator(`#set-${key}`);

test.describe('pane on a private host with a YAML row', () => {
  let host: Host | undefined;
  test.afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  const ROW = `- id: agents-notch
  config:
    opacity: 0.8
    holdMs: slow
    context: { budget: 1000000, hotAt: 0.6 }
`;

  test('one slider moved writes exactly that key; the row value beside it still shows as row', async ({ page }) => {
    host = await startHostWithPatch(ROW);
    await openPane(page, host.url);
    await expect(setting(page, 'opacity').locator('.source')).toHaveText('row');
    await expect(setting(page, 'opacity').locator('.value')).toHaveText('0.8');
    await expect(setting(page, 'scale').locator('.source')).toHaveText('default');
    expect(readSettingsFile(host.home)).toBeNull();

    const scale = page.getByLabel('Scale', { exact: true });
    await scale.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => parseSettings(readSettingsFile(host!.home))).toEqual({ scale: 1.05 });
    await expect(setting(page, 'scale').locator('.source')).toHaveText('pane');
    await expect(setting(page, 'scale').locator('.value')).toHaveText('1.05×');
    await expect(page.locator('#preview')).toHaveAttribute('style', /--scale:1\.05/);
    // the row's opacity was not snapshotted into the pane's file
    await expect(setting(page, 'opacity').locator('.source')).toHaveText('row');
    expect(Object.keys(parseSettings(readSettingsFile(host.home))!)).toEqual(['scale']);

    // a hand edit of the YAML row appears without a reload
    writePatch(host.home, ROW.replace('opacity: 0.8', 'opacity: 0.6'));
    await expect(setting(page, 'opacity').locator('.value')).toHaveText('0.6');
    await expect(setting(page, 'opacity').locator('.source')).toHaveText('row');
    await expect(setting(page, 'scale').locator('.source')).toHaveText('pane');
  });

  test('ignored values are shown with their file and reason, and the row facts', async ({ page }) => {
    host = await startHostWithPatch(ROW);
    await openPane(page, host.url);
    await expect(setting(page, 'holdMs').locator('.warn')).toContainText('want a number, got "slow"; using the layer beneath');
    await expect(setting(page, 'holdMs').locator('.source')).toHaveText('default');
    await expect(page.locator('#warning-list')).toContainText('cordis.patch.yml');
    await expect(page.locator('#warning-list')).toContainText('holdMs');
    await expect(page.locator('#fact-budget')).toHaveText('1,000,000 tokens; the bar turns amber at 60%');
    await expect(page.locator('#fact-retire')).toContainText('route');
  });
});

test.describe('pane on the shared host', () => {
  test.beforeEach(async () => {
    await resetSettings(BASE);
  });
  // leave the shared host's settings as other spec files expect to find them
  test.afterEach(async () => {
    await resetSettings(BASE);
  });

  test('per-key reset and reset-all', async ({ page }) => {
    await openPane(page);
    await expect(page.locator('#reset-all')).toBeDisabled();
    await page.getByLabel('Scale', { exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ scale: 1.05 });
    await page.getByLabel('Show the project', { exact: true }).click();
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ scale: 1.05, showProject: false });
    await page.getByRole('radio', { name: 'Left' }).check();
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ scale: 1.05, showProject: false, anchor: 'top-left' });
    await expect(setting(page, 'anchor').locator('.source')).toHaveText('pane');

    await setting(page, 'scale').getByRole('button', { name: 'Reset Scale' }).click();
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ showProject: false, anchor: 'top-left' });
    await expect(setting(page, 'scale').locator('.source')).toHaveText('default');
    await expect(setting(page, 'scale').locator('.value')).toHaveText('1×');
    await expect(page.getByLabel('Scale', { exact: true })).toHaveValue('1');
    await expect(setting(page, 'scale').getByRole('button', { name: 'Reset Scale' })).toBeDisabled();

    await page.locator('#reset-all').click();
    await expect.poll(() => parseSettings(readSettingsFile()) ?? {}).toEqual({});
    for (const key of ['scale', 'showProject', 'anchor']) {
      await expect(setting(page, key).locator('.source')).toHaveText('default');
    }
    await expect(page.getByLabel('Show the project', { exact: true })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'Center' })).toBeChecked();
  });

  test('changes made elsewhere appear in an open pane and board without reload', async ({ page, context }) => {
    test.slow(); // three live pages
    await openPane(page);
    const board = await context.newPage();
    await board.goto('/agents-notch/');
    await expect(board.locator('html')).toHaveAttribute('data-live', 'live');

    await setSettings(BASE, { anchor: 'top-right', maxRows: 4 });
    await expect(page.getByRole('radio', { name: 'Right' })).toBeChecked();
    await expect(setting(page, 'anchor').locator('.source')).toHaveText('pane');
    await expect(page.getByLabel('Rows shown', { exact: true })).toHaveValue('4');
    await expect(page.locator('#preview')).toHaveAttribute('data-anchor', 'top-right');
    await expect(board.locator('#board-cfg')).toHaveAttribute('data-anchor', 'top-right');
    await expect.poll(() => board.locator('#board-vars').evaluate((e) => e.textContent)).toMatch(/--max-rows:4\b/);

    // a second pane: its change shows in the first
    const other = await context.newPage();
    await openPane(other);
    await other.getByLabel('Top edge opens', { exact: true }).click();
    await expect(page.getByLabel('Top edge opens', { exact: true })).not.toBeChecked();
    await expect(board.locator('#board-cfg')).toHaveAttribute('data-top-edge-opens', 'false');
    await other.close();
    await board.close();
  });

  test('a patch arriving mid-drag does not fight the slider; nothing is posted before change', async ({ page }) => {
    await openPane(page);
    const slider = page.getByLabel('Opacity', { exact: true });
    // drag: input events only, no change yet
    await slider.evaluate((el: HTMLInputElement) => {
      el.value = '0.5';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await expect(setting(page, 'opacity').locator('.value')).toHaveText('0.5');
    await expect(page.locator('#preview')).toHaveAttribute('style', /--opacity:\s*0\.5/);
    // meanwhile something else changes and the pane is re-rendered
    await setSettings(BASE, { motion: 'off' });
    await expect(page.getByRole('radio', { name: 'Off' }).first()).toBeChecked();
    await expect(slider).toHaveValue('0.5');
    expect(parseSettings(readSettingsFile())).toEqual({ motion: 'off' });
    // the release posts the one key
    await slider.evaluate((el: HTMLInputElement) => el.dispatchEvent(new Event('change', { bubbles: true })));
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ motion: 'off', opacity: 0.5 });
  });

  test('a refused display shows its reason and writes nothing; a good one is saved', async ({ page }) => {
    await openPane(page);
    const screen = page.getByLabel('Screen', { exact: true });
    await expect(setting(page, 'screen').locator('.window-only')).toHaveText('desktop window');
    await expect(setting(page, 'hideFullscreen').locator('.window-only')).toHaveText('desktop window');
    await screen.fill('99');
    await screen.press('Enter');
    await screen.blur();
    await expect(page.locator('#reason-screen')).toHaveText('Want "primary", "cursor" or a display number 1 … 64.');
    await expect(screen).toHaveAttribute('aria-invalid', 'true');
    expect(parseSettings(readSettingsFile()) ?? {}).toEqual({});

    await screen.fill('2');
    await screen.blur();
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ screen: '2' });
    await expect(setting(page, 'screen').locator('.value')).toHaveText('2');
    await expect(setting(page, 'screen').locator('.source')).toHaveText('pane');

    // Should the host refuse what the pane sends anyway (a 400 carries no
    // reason Datastar can read), the pane says so next to the control.
    const ghost = page.getByLabel('Ghost opacity', { exact: true });
    await ghost.evaluate((el) =>
      el.setAttribute('data-on:change', "@post('/agents-notch/settings', {payload: {ghostOpacity: 'faint'}})"),
    );
    await ghost.focus();
    await page.keyboard.press('ArrowRight');
    await expect(setting(page, 'ghostOpacity').locator('.refusal')).toHaveText('The host refused this value (HTTP 400).');
    expect(parseSettings(readSettingsFile())).toEqual({ screen: '2' });

    // the window-only bool is saved like any other key
    await page.getByLabel('Hide over full-screen apps', { exact: true }).click();
    await expect.poll(() => parseSettings(readSettingsFile())).toEqual({ screen: '2', hideFullscreen: false });
  });

  test('every key has a labelled control, its value, its layer and a reset', async ({ page }) => {
    await openPane(page);
    const keys = [
      'scale', 'screen', 'anchor', 'maxRows', 'hideFullscreen', 'opacity', 'motion',
      'showProject', 'showDone', 'hoverMode', 'holdMs', 'topEdgeOpens', 'ghostOpacity', 'alerts',
    ];
    await expect(page.locator('.setting')).toHaveCount(keys.length);
    for (const key of keys) {
      const s = setting(page, key);
      await expect(s.locator('.source')).toHaveText('default');
      await expect(s.locator('.value')).not.toBeEmpty();
      await expect(s.locator('button.reset')).toBeDisabled();
    }
    for (const [label, min, max] of [
      ['Scale', '0.75', '2'],
      ['Opacity', '0.35', '1'],
      ['Ghost opacity', '0.05', '0.6'],
      ['Rows shown', '3', '10'],
      ['Rest before opening', '500', '4000'],
    ]) {
      const el = page.getByLabel(label, { exact: true });
      await expect(el).toHaveAttribute('min', min);
      await expect(el).toHaveAttribute('max', max);
    }
  });

  test('no serious or critical axe violations', async ({ page }) => {
    test.slow(); // a full axe scan
    const id = uid('pane-shot');
    await sendEvents(BASE, [ev('session.opened', id, { cwd: '/srv/pane' }), ev('turn.started', id)]);
    await setSettings(BASE, { scale: 1.25 });
    await openPane(page);
    await expect(setting(page, 'scale').locator('.source')).toHaveText('pane');
    const res = await new AxeBuilder({ page }).analyze();
    expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await finish(BASE, id);
  });
});
