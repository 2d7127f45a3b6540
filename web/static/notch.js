// notch.js: the client half of the board and the Settings pane.
//
// The server renders everything it knows; this file adds only what depends
// on the viewer or on the clock, and keeps it outside the patched fragments
// (on <html>) or re-applies it after every patch:
//   - liveness: no stream event for 3.5 s marks <html data-live="unknown">,
//     the next event clears it (docs/contract.md rule 3, judged on the client);
//   - the polite live region, fed from the data-say of #board-say / #pane-say;
//   - relative times (data-since-ms) and the pleased face (data-approved-at);
//   - the tab: hover / ghost / hold / top edge / pin, per the settings the
//     board carries; nothing is remembered on disk;
//   - the pane: live preview while a slider moves, reasons for refusals.

const root = document.documentElement;
const page = root.dataset.page;
// The stream carries an event at least every second (a heartbeat fills any
// silence). Silence for 3.5 s (three missed heartbeats) marks the page
// unknown, so the unknown state shows within 5 s of the host's last word
// even when that word came a second before it stopped (docs/contract.md rule 3's 4 s,
// judged here on what arrived).
const STALE_MS = 3500;
const PLEASED_MS = 3000;

// The host's clock stamps since and approvedAt. When this machine's clock
// disagrees with it by more than a moment, correct by the difference seen
// when the page was served: the host's clock at render against this
// machine's clock when the response began to arrive (so a slow page load
// is not mistaken for a wrong clock).
let skew = 0;
{
  const served = Number(root.dataset.serverNow);
  const nav = performance.getEntriesByType('navigation')[0];
  const arrived = performance.timeOrigin + (nav ? nav.responseStart : 0);
  if (served > 0 && Math.abs(served - arrived) > 2000) skew = served - arrived;
}
const now = () => Date.now() + skew;

const $ = (id) => document.getElementById(id);

// ---------- announcements ----------

let said = null;
function announce(text) {
  const r = $('announce');
  if (r && text && r.textContent !== text) r.textContent = text;
}
function phrase() {
  if (root.dataset.live === 'unknown') return 'notch-web: status unknown';
  return $(page + '-say')?.dataset.say ?? '';
}
function sayStatus() {
  const p = phrase();
  if (!p) return;
  if (said === null) {
    said = p; // the page as loaded is not news
    return;
  }
  if (p !== said) {
    said = p;
    announce(p);
  }
}

// ---------- liveness ----------

let lastEvent = performance.now();
function setLive(live) {
  const v = live ? 'live' : 'unknown';
  if (root.dataset.live !== v) {
    root.dataset.live = v;
    afterPatch();
  }
}

document.addEventListener('datastar-fetch', (e) => {
  const d = e.detail ?? {};
  switch (d.type) {
    case 'datastar-patch-elements':
    case 'datastar-patch-signals':
      lastEvent = performance.now();
      setLive(true);
      // Datastar applies the patch in its own listener, registered before
      // this one: the fragment is already new here.
      afterPatch();
      break;
    case 'retries-failed':
      setLive(false);
      break;
    case 'error':
      refused(d.el, d.argsRaw?.status);
      break;
  }
});

// ---------- relative times and faces ----------

function rel(ms) {
  const s = Math.max(0, Math.floor((now() - ms) / 1000));
  if (s < 5) return 'now';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

function tickTimes() {
  for (const t of document.querySelectorAll('time[data-since-ms]')) {
    const ms = Number(t.dataset.sinceMs);
    if (!(ms > 0)) continue;
    const v = rel(ms);
    if (t.textContent !== v) t.textContent = v;
    if (!t.title) t.title = `since ${new Date(ms - skew).toLocaleString()}`;
  }
}

// The pleased face: 3 s after an allowed approval. The server names the
// moment (data-approved-at); the clock that decides is here.
const serverLabel = new WeakMap();
function tickFaces() {
  for (const b of document.querySelectorAll('.bot[data-approved-at]')) {
    const age = now() - Number(b.dataset.approvedAt);
    const pleased = age >= 0 && age < PLEASED_MS && root.dataset.live !== 'unknown';
    if (pleased && !b.hasAttribute('data-pleased')) {
      serverLabel.set(b, b.getAttribute('aria-label'));
      b.setAttribute('data-pleased', '');
      b.setAttribute('aria-label', 'bot pleased: you allowed it');
    } else if (!pleased && b.hasAttribute('data-pleased')) {
      b.removeAttribute('data-pleased');
      const l = serverLabel.get(b);
      if (l) b.setAttribute('aria-label', l);
    }
  }
}

// ---------- the tab: open, ghost, pin ----------

const ui = { open: false, by: '', pinned: false, ghost: false };
let holdTimer = 0;
let closeTimer = 0;
let rest = { x: -1, y: -1 };

// The board carries the effective settings, clamped by the host (the one
// place their ranges live): the page applies them as given.
function boardSettings() {
  const d = $('board')?.dataset ?? {};
  return {
    hoverMode: d.hoverMode === 'open' ? 'open' : 'ghost',
    holdMs: Number(d.holdMs),
    topEdgeOpens: d.topEdgeOpens !== 'false',
  };
}

const UNKNOWN_NAME = 'notch-web: status unknown';
let tabName = '';

function applyUI() {
  const flag = (name, on) => (on ? root.setAttribute(name, '') : root.removeAttribute(name));
  flag('data-open', ui.open);
  flag('data-pinned', ui.pinned);
  flag('data-ghost', ui.ghost && !ui.open && !ui.pinned);
  const tab = $('tab');
  if (tab) {
    tab.setAttribute('aria-expanded', String(ui.open || ui.pinned));
    // The tab's name is the server's summary; while the stream is silent
    // that summary is not current, so the name says unknown instead.
    const name = tab.querySelector('.tab-name');
    if (name) {
      if (root.dataset.live === 'unknown') {
        if (name.textContent !== UNKNOWN_NAME) {
          tabName = name.textContent;
          name.textContent = UNKNOWN_NAME;
        }
      } else if (name.textContent === UNKNOWN_NAME && tabName) {
        name.textContent = tabName;
      }
    }
  }
  $('pin')?.setAttribute('aria-pressed', String(ui.pinned));
}

function openBoard(by) {
  clearTimeout(holdTimer);
  holdTimer = 0;
  ui.ghost = false;
  if (!ui.open) {
    ui.open = true;
    ui.by = by;
  } else if (by !== 'pointer') {
    ui.by = by;
  }
  applyUI();
}

function foldBoard() {
  clearTimeout(closeTimer);
  closeTimer = 0;
  ui.open = false;
  ui.by = '';
  applyUI();
}

function unghost() {
  clearTimeout(holdTimer);
  holdTimer = 0;
  if (ui.ghost) {
    ui.ghost = false;
    applyUI();
  }
}

const inside = (r, x, y, pad = 0) =>
  r && x >= r.left - pad && x <= r.right + pad && y >= r.top - pad && y <= r.bottom + pad;

function onPointer(x, y) {
  const notch = $('notch');
  if (!notch) return;
  const bar = notch.querySelector('.tabbar')?.getBoundingClientRect();
  const all = notch.getBoundingClientRect();
  if (ui.pinned) return;
  if (ui.open) {
    if (inside(all, x, y, 8)) {
      clearTimeout(closeTimer);
      closeTimer = 0;
    } else if (ui.by === 'pointer' && !closeTimer) {
      closeTimer = setTimeout(foldBoard, 400);
    }
    return;
  }
  const s = boardSettings();
  // The pointer pushed against the top edge over the tab opens it at once.
  if (s.topEdgeOpens && y >= 0 && y <= 1 && bar && x >= bar.left && x <= bar.right) {
    openBoard('pointer');
    return;
  }
  if (!inside(bar, x, y)) {
    unghost();
    return;
  }
  if (s.hoverMode === 'open') {
    openBoard('pointer');
    return;
  }
  // Ghost: fade and let clicks through; unfold once the pointer rests.
  if (!ui.ghost) {
    ui.ghost = true;
    applyUI();
  }
  if (!holdTimer || Math.hypot(x - rest.x, y - rest.y) > 3) {
    rest = { x, y };
    clearTimeout(holdTimer);
    holdTimer = setTimeout(() => openBoard('pointer'), s.holdMs);
  }
}

function initBoard() {
  document.addEventListener(
    'pointermove',
    (e) => {
      if (e.pointerType !== 'touch') onPointer(e.clientX, e.clientY);
    },
    { passive: true },
  );
  root.addEventListener('pointerleave', () => onPointer(-100, -100));

  document.addEventListener('click', (e) => {
    const t = e.target instanceof Element ? e.target : null;
    if (t?.closest('#pin')) {
      ui.pinned = !ui.pinned;
      if (!ui.pinned) {
        ui.open = true; // stay open under the hand that unpinned it
        ui.by = 'click';
      }
      applyUI();
      return;
    }
    if (t?.closest('#tab')) {
      if (ui.pinned) return;
      if (ui.open && ui.by !== 'pointer') foldBoard();
      else openBoard('click');
      return;
    }
    if (ui.open && ui.by === 'click' && !t?.closest('#notch')) foldBoard();
  });

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !ui.open || ui.pinned) return;
    const within = $('notch')?.contains(document.activeElement);
    foldBoard();
    if (within) $('tab')?.focus();
  });

  document.addEventListener('focusout', (e) => {
    const notch = $('notch');
    if (!notch || !ui.open || ui.by !== 'click') return;
    if (e.relatedTarget instanceof Node && !notch.contains(e.relatedTarget)) foldBoard();
  });
}

// ---------- refusals ----------

let toastTimer = 0;
function toast(text) {
  const t = $('toast');
  if (!t) return;
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    t.hidden = true;
  }, 6000);
}

// A Datastar request answered >= 400 fires 'error' with the status only.
// The pane never sends a value it knows the host refuses (see initPane), so
// a refusal here is the host disagreeing: say so, with its status.
function refused(el, status) {
  if (!(el instanceof Element) || el === document.body) return;
  const code = status ? ` (HTTP ${status})` : '';
  const setting = el.closest('.setting');
  if (setting) {
    const r = setting.querySelector('.refusal');
    const msg = `The host refused this value${code}.`;
    if (r) r.textContent = msg;
    announce(msg);
    return;
  }
  if (el.closest('.row')) {
    const what = el.classList.contains('close') ? 'close out the session' : 'open the session';
    const msg = `Could not ${what}: the host answered${code || ' with an error'}.`;
    toast(msg);
    announce(msg);
  }
}

// ---------- the pane ----------

function fmtUnit(input, v) {
  const u = input.dataset.unit ?? '';
  if (!u) return v;
  return u === '×' ? `${v}×` : `${v} ${u}`;
}

function initPane() {
  // While a slider moves, show its value and move the preview; nothing is
  // posted until 'change' (the control's own data-on:change does that).
  document.addEventListener('input', (e) => {
    const el = e.target;
    if (!(el instanceof HTMLInputElement) || el.type !== 'range') return;
    const out = $(`val-${el.name}`);
    if (out) out.textContent = fmtUnit(el, el.value);
    const prop = el.dataset.preview;
    if (prop) $('preview')?.style.setProperty(prop, el.value);
  });
  // The display input: the same grammar as the host's, checked before the
  // post (its data-on:change posts only a valid value); the reason shows
  // next to it.
  document.addEventListener(
    'change',
    (e) => {
      const el = e.target;
      if (!(el instanceof HTMLInputElement) || el.type !== 'text') return;
      const r = $(`reason-${el.name}`);
      if (el.checkValidity()) {
        el.removeAttribute('aria-invalid');
        if (r) r.textContent = '';
      } else {
        el.setAttribute('aria-invalid', 'true');
        const msg = el.dataset.reason || el.validationMessage;
        if (r) r.textContent = msg;
        announce(`${el.name}: ${msg}`);
      }
    },
    true,
  );
}

// ---------- after every patch, and on a tick ----------

function afterPatch() {
  if (page === 'board') {
    applyUI();
    tickTimes();
    tickFaces();
  }
  sayStatus();
}

if (page === 'board') initBoard();
if (page === 'pane') initPane();
afterPatch();

setInterval(() => {
  if (performance.now() - lastEvent > STALE_MS) setLive(false);
  if (page === 'board') {
    tickTimes();
    tickFaces();
  }
}, 250);
