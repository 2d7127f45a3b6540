// A history to look at: sessions on the last ten days and a morning of
// today's, fed through POST /agents-notch/events with their own times, so
// the store keeps them as it keeps any agent's (host/store). Shared by
// history-page.spec.ts and the README's screenshots.
import { sendEvents } from './host';

const MIN = 60_000;

type Ev = Record<string, unknown>;

/** TODAY_SPAN is how long today's sessions take, from the first one's start, in their own minutes. */
const TODAY_SPAN = 200;

/** todayBase is where today's sessions start: 3 h 20 min ago, or just after midnight. */
export function todayBase(now = Date.now()): number {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  return Math.max(now - TODAY_SPAN * MIN, midnight.getTime() + MIN);
}

/**
 * todayUnit is a minute of today's sessions: a minute, or less before 03:21,
 * when a day so young has not had 3 h 20 min — then their times shrink to
 * fit between midnight and now, in the same order and proportions (the
 * host takes no event from the future).
 */
export function todayUnit(now = Date.now()): number {
  return Math.min(MIN, (now - todayBase(now)) / TODAY_SPAN);
}

/** session is one session's events: a turn of tools, waits on you, an end. */
function session(id: string, at: number, o: { title: string; cwd: string; waits: number[]; error?: boolean; open?: boolean; tools?: string[] }, unit = MIN): Ev[] {
  const ev: Ev[] = [];
  let t = at;
  const e = (x: Ev, dt = MIN) => {
    ev.push({ v: 2, session: id, at: Math.round(t), ...x });
    t += (dt / MIN) * unit;
  };
  e({ type: 'session.opened', title: o.title, cwd: o.cwd, project: o.cwd.split('/').pop() });
  e({ type: 'turn.started' });
  for (const [i, w] of o.waits.entries()) {
    const tool = (o.tools ?? ['Bash', 'Read', 'Edit'])[i % 3];
    e({ type: 'tool.started', tool }, 4 * MIN);
    e({ type: 'tool.ended', tool, outcome: o.error && i === o.waits.length - 1 ? 'error' : 'ok' }, 3 * MIN);
    e({ type: 'approval.requested', tool: 'Bash', reason: 'runs the tests' }, w * MIN);
    e({ type: 'approval.resolved', outcome: 'allowed-once' }, 6 * MIN);
  }
  e({ type: 'context.tokens', tokens: 40_000 + o.waits.length * 31_000 });
  if (o.open) return ev;
  e({ type: 'turn.ended', outcome: o.error ? 'error' : 'completed' });
  e({ type: 'session.ended', outcome: o.error ? 'error' : 'completed' });
  return ev;
}

/** seedHistory fills a host's history; it resolves once the store has every session. */
export async function seedHistory(base: string, now = Date.now()): Promise<void> {
  // In the first minutes of a day today's sessions would be squeezed into
  // milliseconds: wait until five minutes past midnight (at most five).
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const young = midnight.getTime() + 5 * MIN - now;
  if (young > 0) {
    await new Promise((r) => setTimeout(r, young));
    now = Date.now();
  }
  const evs: Ev[] = [];
  for (let d = 10; d >= 1; d--) {
    // Each past day's sessions start at 09:00 that day, so none runs into
    // the next (from now − d days, a late run's sessions of yesterday
    // crossed midnight into today's list).
    const morning = new Date(now);
    morning.setDate(morning.getDate() - d);
    morning.setHours(9, 0, 0, 0);
    for (let k = 0; k < 1 + (d % 4); k++) {
      evs.push(...session(`past-${d}-${k}`, morning.getTime() + k * 47 * MIN, { title: `Nightly ${['bump', 'triage', 'docs', 'release'][k % 4]} ${d}`, cwd: `/src/${['infra', 'notch-web', 'docs', 'uploads'][k % 4]}`, waits: [2 + ((d * 3 + k) % 9), 1 + (d % 5)] }));
    }
  }
  const b = todayBase(now);
  const u = todayUnit(now);
  evs.push(...session('hp-parser', b, { title: 'Refactor the parser', cwd: '/src/parser', waits: [5, 2] }, u));
  evs.push(...session('hp-upload', b + 25 * u, { title: 'Fix the flaky upload test', cwd: '/src/uploads', waits: [14], error: true, tools: ['shell', 'apply_patch', 'shell'] }, u));
  evs.push(...session('hp-hostile', b + 70 * u, { title: '<img src=x onerror=alert(1)> \u202egnp.exe ' + 'long '.repeat(180), cwd: '/src/hostile', waits: [3] }, u));
  evs.push(...session('hp-page', b + 110 * u, { title: 'Write the History page', cwd: '/src/notch-web', waits: [4, 1], open: true }, u));
  // The store wants a session's events in order; the fold wants them in
  // order per session, which they are.
  await sendEvents(base, evs);
  const want = 4 + Array.from({ length: 10 }, (_, i) => 1 + ((10 - i) % 4)).reduce((a, b) => a + b, 0);
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${base}/agents-notch/history`, { headers: { accept: 'application/json' } });
    const j = await res.json();
    if (j.total >= want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the store did not get the seeded sessions');
}
