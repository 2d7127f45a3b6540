// Installable: the board links a web manifest that is served with its media
// type, parses without errors, names a standalone window on the board, and
// lists icons that are served with the types and sizes it claims — and
// Chromium itself finds nothing that stops "Install app".
import { test, expect, chromium } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import config from '../playwright.config';
import { BASE } from './host';

test('the manifest is served, valid, and its icons are what it says', async ({ page, request }) => {
  await page.goto('/agents-notch/');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('/agents-notch/manifest.webmanifest');
  const res = await request.get(BASE + href);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toBe('application/manifest+json');
  const m = await res.json();
  expect(m).toMatchObject({
    name: 'agents notch',
    short_name: 'notch',
    start_url: '/agents-notch/',
    scope: '/agents-notch/',
    display: 'standalone',
  });
  expect(m.theme_color).toMatch(/^#[0-9a-f]{6}$/);
  expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/);
  expect(await page.locator('meta[name="theme-color"]').getAttribute('content')).toBe(m.theme_color);

  const pngs: string[] = [];
  for (const icon of m.icons as Array<{ src: string; sizes: string; type: string; purpose: string }>) {
    const r = await request.get(BASE + icon.src);
    expect(r.status(), icon.src).toBe(200);
    expect(r.headers()['content-type'], icon.src).toContain(icon.type);
    if (icon.type !== 'image/png') continue;
    // decode it the way the browser will, and measure it
    const size = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return `${img.naturalWidth}x${img.naturalHeight}`;
    }, icon.src);
    expect(size, icon.src).toBe(icon.sizes);
    if (icon.purpose.split(' ').includes('any')) pngs.push(icon.sizes);
  }
  expect(pngs).toEqual(expect.arrayContaining(['192x192', '512x512']));

  // Chromium's own reading of it: no parse errors, and nothing that blocks
  // installing — no service worker needed. A test context is off the
  // record, where nothing installs, so this asks a real profile.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-profile-'));
  const ctx = await chromium.launchPersistentContext(profile, { ...config.use!.launchOptions, headless: true });
  try {
    const p = ctx.pages()[0] ?? (await ctx.newPage());
    await p.goto(BASE + '/agents-notch/');
    await expect(p.locator('html')).toHaveAttribute('data-live', 'live');
    const cdp = await ctx.newCDPSession(p);
    const parsed = await cdp.send('Page.getAppManifest', {});
    expect(parsed.url).toBe(BASE + '/agents-notch/manifest.webmanifest');
    expect(parsed.errors).toEqual([]);
    await expect
      .poll(async () => (await cdp.send('Page.getInstallabilityErrors')).installabilityErrors)
      .toEqual([]);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

test('the Settings pane links the same manifest, and the pane and the board link to each other', async ({ page }) => {
  await page.goto('/agents-notch/pane');
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/agents-notch/manifest.webmanifest');
  await page.getByRole('link', { name: 'Open the board' }).click();
  await expect(page).toHaveURL(/\/agents-notch\/$/);
  await expect(page.locator('html')).toHaveAttribute('data-live', 'live');
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page).toHaveURL(/\/agents-notch\/pane$/);
});
