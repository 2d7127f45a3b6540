import { defineConfig } from '@playwright/test';
import * as path from 'node:path';

// One notch-web, the real binary (built by `make build`), serves every test
// that does not need a host of its own. Its DSH home is a fresh folder each
// run; tests read the files it writes there.
export const PORT = Number(process.env.NOTCH_PORT ?? 7461);
export const BASE = `http://127.0.0.1:${PORT}`;
export const DSH_HOME = path.join(__dirname, '.tmp', 'dsh');
export const BIN = path.join(__dirname, '..', 'bin', 'notch-web');
// HUB_BIN is the hub's build (-tags notch_hub; make build makes both).
export const HUB_BIN = path.join(__dirname, '..', 'bin', 'notch-web-hub');

export default defineConfig({
  testDir: './tests',
  // Tests share one host and its settings file: run them one at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL: BASE,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  webServer: {
    command:
      `rm -rf "${DSH_HOME}" && mkdir -p "${DSH_HOME}" && ` +
      `exec "${BIN}" --addr 127.0.0.1:${PORT} --dsh-home "${DSH_HOME}" --log-level warning`,
    url: `${BASE}/healthz`,
    reuseExistingServer: false,
    timeout: 20_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
