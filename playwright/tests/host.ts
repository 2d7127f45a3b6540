// Helpers shared by the specs: a private notch-web process for tests that
// stop or kill their host, and small readers of the files it writes.
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, DSH_HOME } from '../playwright.config';

export { BASE, DSH_HOME } from '../playwright.config';

export type Host = {
  url: string; // http://127.0.0.1:PORT
  home: string;
  proc: ChildProcess;
  /** log holds the host's JSON Lines log records, as parsed objects. */
  log: Array<Record<string, any>>;
  stop: () => Promise<void>;
};

/**
 * startHost runs a private notch-web on a free port and resolves once it
 * prints its URL; env is added to this process's environment for it, and
 * bin is the binary (the hub's build for --hub: HUB_BIN).
 */
export async function startHost(args: string[] = [], home?: string, env: Record<string, string> = {}, bin: string = BIN): Promise<Host> {
  home ??= fs.mkdtempSync(path.join(os.tmpdir(), 'notch-web-pw-'));
  const proc = spawn(bin, ['--addr', '127.0.0.1:0', '--dsh-home', home, '--log-level', 'warning', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const log: Array<Record<string, any>> = [];
  let partial = '';
  proc.stderr!.on('data', (d: Buffer) => {
    partial += d.toString();
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      try {
        log.push(JSON.parse(line));
      } catch {
        process.stderr.write(line + '\n');
      }
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      // With --tls-cert the line is https at the certificate's name: the
      // tests reach the same port over plain http on loopback.
      if (nl >= 0) {
        const u = new URL(out.slice(0, nl).trim());
        resolve(u.protocol === 'https:' ? `http://127.0.0.1:${u.port}` : u.origin);
      }
    });
    proc.on('exit', (code) => reject(new Error(`notch-web exited with ${code} before serving`)));
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGCONT');
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  };
  return { url, home, proc, log, stop };
}

/** settingsFile is the pane's override file under a DSH home. */
export function settingsFile(home: string = DSH_HOME): string {
  return path.join(home, 'state', 'agents-notch', 'settings.json');
}

/** readSettingsFile returns the pane file's bytes, or null when there is none. */
export function readSettingsFile(home: string = DSH_HOME): string | null {
  try {
    return fs.readFileSync(settingsFile(home), 'utf8');
  } catch {
    return null;
  }
}

/** postJSON sends a JSON POST the way a local script would (no Origin). */
export async function postJSON(base: string, route: string, body: unknown): Promise<Response> {
  return fetch(base + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** sendEvents POSTs session events (an array becomes NDJSON) and fails loudly on refusal. */
export async function sendEvents(base: string, events: object[]): Promise<void> {
  const res = await postJSON(base, '/agents-notch/events', events.map((e) => JSON.stringify(e)).join('\n'));
  if (res.status !== 200) throw new Error(`events refused: ${res.status} ${await res.text()}`);
}
