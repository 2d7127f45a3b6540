// notch.js: the client half of the board and the Settings pane.
//
// The server renders everything it knows; this file adds only what depends
// on the viewer, the browser or the clock, and keeps it outside the patched
// fragments (on <html>) or re-applies it after every patch:
//   - liveness: no stream event for 3.5 s marks <html data-live="unknown">,
//     the next event clears it (docs/contract.md rule 3, judged on the client);
//   - the polite live region, fed from the data-say of #board-say / #pane-say;
//   - relative times (from <time datetime>) and the pleased face (data-approved-at);
//   - the tab: in a browser tab the board is a page — it opens unfolded and
//     a click or Enter on the tab folds and unfolds it; in the pop-out, which
//     floats over other apps as the desktop window does, hover / ghost / hold
//     / top edge / pin apply, per the settings the board carries; nothing is
//     remembered on disk;
//   - the page's title (the count that needs you) and its icon (the dot);
//   - notifications while the page is hidden, per the alerts setting;
//   - the pop-out: a Document Picture-in-Picture window mirroring the board,
//     or a small window of its own where the browser has no such thing;
//   - the lane of who waits: its folds, its keys (j / k, o, Enter, Esc, ?),
//     and the next card after one is answered;
//   - the full text of truncated text on hover and focus;
//   - focus after a ✕ or a Reset, which take away the focused control;
//   - the pane: live preview while a slider moves, reasons for refusals, and
//     its height for the harness app that frames it.
//
// Server text only ever reaches the page as text: this file sets
// textContent and attributes, never markup.

const root = document.documentElement;
const page = root.dataset.page;
// The stream carries an event at least every second (a heartbeat fills any
// silence). Silence for 3.5 s (three missed heartbeats) marks the page
// unknown, so the unknown state shows within 5 s of the host's last word
// even when that word came a second before it stopped (docs/contract.md rule 3's 4 s,
// judged here on what arrived).
const STALE_MS = 3500;
const PLEASED_MS = 3000;
// How long a ✕ or a Reset waits for the patch that takes its control away
// before focus is no longer its business.
const FOCUS_WAIT_MS = 8000;

// ?popout=1 is the board as its own small window (the pop-out where the
// browser has no Document Picture-in-Picture): the server marks its <html>
// data-popout (a plain tab's it marks data-open, so the board's first paint
// is already unfolded). It starts folded, as the overlay does.
const popoutPage = page === 'board' && root.hasAttribute('data-popout');

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
// isEl works across windows: nodes in the pop-out belong to its realm, where
// this realm's Element is not their constructor.
const isEl = (n) => !!n && n.nodeType === 1;
const isUnknown = () => root.dataset.live === 'unknown' || !!$('board-cfg')?.hasAttribute('data-unknown');

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

// The plan's reset times, in this viewer's clock: "resets 14:05" today,
// "resets Mon 09:00" later.
function planTimes() {
  for (const t of document.querySelectorAll('#board time.plan-reset')) {
    const at = Date.parse(t.getAttribute('datetime') ?? '');
    if (!Number.isFinite(at)) continue;
    const d = new Date(at - skew);
    const hm = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const soon = at - now() < 20 * 3600 * 1000;
    const text = `resets ${soon ? hm : `${d.toLocaleDateString([], { weekday: 'short' })} ${hm}`}`;
    if (t.textContent !== text) t.textContent = text;
  }
  // The ledger's figures: how old each is ("3m ago"), the instant on hover.
  for (const t of document.querySelectorAll('#board time.plan-asof')) {
    const at = Date.parse(t.getAttribute('datetime') ?? '');
    if (!Number.isFinite(at)) continue;
    const r = rel(at);
    const text = r === 'now' ? 'as of now' : `${r} ago`;
    if (t.textContent !== text) t.textContent = text;
    const title = `as of ${new Date(at - skew).toLocaleString()}`;
    if (t.title !== title) t.title = title;
  }
}

// A usage limit's reset on a row, in this viewer's clock, counting down:
// "resumes 14:05 · in 1h 20m"; "may resume now" once it has passed.
function whyTimes() {
  for (const t of document.querySelectorAll('#board time.why-reset')) {
    const at = Date.parse(t.getAttribute('datetime') ?? '');
    if (!Number.isFinite(at)) continue;
    const left = at - now();
    let text = 'may resume now';
    if (left > 0) {
      const d = new Date(at - skew);
      const hm = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      const m = Math.ceil(left / 60000);
      const inText = m < 60 ? `${m}m` : m < 48 * 60 ? `${Math.floor(m / 60)}h ${m % 60}m` : `${Math.floor(m / 1440)}d`;
      text = `resumes ${left < 20 * 3600 * 1000 ? hm : `${d.toLocaleDateString([], { weekday: 'short' })} ${hm}`} · in ${inText}`;
    }
    if (t.textContent !== text) t.textContent = text;
  }
}

function tickTimes() {
  for (const t of document.querySelectorAll('time.since[datetime], time.wait[datetime]')) {
    const ms = Date.parse(t.dateTime);
    if (!(ms > 0)) continue;
    const v = rel(ms);
    if (t.textContent !== v) t.textContent = v;
    if (!t.title) t.title = `${t.classList.contains('wait') ? 'waiting since' : 'since'} ${new Date(ms - skew).toLocaleString()}`;
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

// by says what unfolded the board: 'pointer' (it folds when the pointer
// leaves), 'click' (it folds on a click or focus elsewhere), 'page' (a
// plain tab's board, which folds only when asked).
const ui = { open: !popoutPage, by: popoutPage ? '' : 'page', pinned: false, ghost: false };
let holdTimer = 0;
let closeTimer = 0;
let rest = { x: -1, y: -1 };

// The board carries the effective settings, clamped by the host (the one
// place their ranges live): the page applies them as given.
function boardSettings() {
  const d = $('board-cfg')?.dataset ?? {};
  return {
    hoverMode: d.hoverMode === 'open' ? 'open' : 'ghost',
    holdMs: Number(d.holdMs),
    topEdgeOpens: d.topEdgeOpens !== 'false',
    alerts: d.alerts === 'off' || d.alerts === 'needs-you' ? d.alerts : 'all',
  };
}

const UNKNOWN_NAME = 'notch-web: status unknown';
let tabName = '';

function applyUI() {
  const flag = (name, on) => (on ? root.setAttribute(name, '') : root.removeAttribute(name));
  flag('data-open', ui.open);
  flag('data-pinned', ui.pinned);
  flag('data-ghost', ui.ghost && !ui.open && !ui.pinned);
  flag('data-popped', !!pop.kind);
  const popped = $('popped');
  if (popped) popped.hidden = !pop.kind;
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
  applyTools();
  mirrorRoot();
  // Unfolding lays the rows out: what is cut short shows only now.
  fitRows();
  markClipped(document);
  if (pop.kind === 'pip') markClipped(pop.win.document);
}

// overlay reports whether the board is showing as the overlay shows on a
// desktop — in the pop-out (its own small window, or the Picture-in-Picture
// copy), floating over other apps — where the hover settings apply. A plain
// browser tab has nothing beneath it for a click to pass to: there the
// board is a page.
const overlay = () => popoutPage || pop.kind === 'pip';

function openBoard(by) {
  if (!overlay()) by = 'page';
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
  fitPopout();
}

function foldBoard() {
  clearTimeout(closeTimer);
  closeTimer = 0;
  ui.open = false;
  ui.by = '';
  applyUI();
  fitPopout();
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

// onPointer applies the hover settings to a pointer at (x, y) in doc: only
// in the pop-out (a plain tab is a page, and a board popped out into
// Picture-in-Picture is measured in its copy there).
function onPointer(x, y, doc = document) {
  if (!overlay() || (pop.kind === 'pip') !== (doc !== document)) return;
  const notch = doc.getElementById('notch');
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

// onEscape folds an unpinned overlay (the pop-out); focus inside it goes
// back to the tab (in whichever document the board is showing). A plain
// tab's board is a page: Escape there closes a tip or empties the filter,
// never the board.
function onEscape(doc) {
  if (!overlay() || !ui.open || ui.pinned) return;
  const within = doc.getElementById('notch')?.contains(doc.activeElement);
  foldBoard();
  if (within) doc.getElementById('tab')?.focus();
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
      fitPopout();
      return;
    }
    if (t?.closest('#tab')) {
      if (!overlay()) {
        if (ui.open) foldBoard();
        else openBoard('page');
        return;
      }
      if (ui.pinned) return;
      if (ui.open && ui.by !== 'pointer') foldBoard();
      else openBoard('click');
      return;
    }
    if (t?.closest('#bell')) {
      onBell();
      return;
    }
    if (t?.closest('#popout')) {
      if (popoutPage) leavePopoutPage();
      else if (pop.kind) popIn();
      else popOut();
      return;
    }
    if (t?.closest('#popin')) {
      popIn();
      return;
    }
    const fold = t?.closest('.fold');
    if (fold) {
      onFold(fold);
      return;
    }
    if (t?.closest('#lane-keys')) {
      showKeys(document);
      return;
    }
    const go = t?.closest('.lane-go');
    if (go) {
      onLaneHead(go);
      return;
    }
    const answer = t?.closest('.lane .card-btn');
    if (answer) expectAnswered(answer);
    const close = t?.closest('.act.close');
    if (close) expectRowGone(close);
    if (t?.closest('.act.open')) seeRow(t.closest('.row')?.dataset.sessionId);
    const term = t?.closest('.act.term');
    if (term) goToTerminal(term);
    const hist = t?.closest('.act.hist-toggle');
    if (hist) toggleHistory(hist);
    if (t?.closest('.steer-send')) steer(t.closest('.steer'), false);
    if (t?.closest('.steer-stop')) steer(t.closest('.steer'), true);
    if (ui.open && ui.by === 'click' && !t?.closest('#notch')) foldBoard();
  });

  // A reply box sends on Enter; Shift+Enter is a new line.
  document.addEventListener('keydown', (e) => {
    const t = e.target instanceof Element ? e.target : null;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && t?.matches('.steer-text')) {
      e.preventDefault();
      steer(t.closest('.steer'), false);
    }
  });

  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') onEscape(document);
  });

  document.addEventListener('focusout', (e) => {
    const notch = $('notch');
    if (!notch || !ui.open || ui.by !== 'click') return;
    if (e.relatedTarget instanceof Node && !notch.contains(e.relatedTarget)) foldBoard();
  });

  document.addEventListener('visibilitychange', () => applyTitle());
  initBell();
  initGroups();
  initLane(document);
  initTips(document);
  initReplyLink();
  // A resize can cross the dashboard's breakpoint: the list's height and
  // what is cut short change with it.
  addEventListener(
    'resize',
    () => {
      fitRows();
      markClipped(document);
    },
    { passive: true },
  );
}

// ---------- reply and stop ----------

// Reply types the box's text into the session's tmux pane (POST
// /agents-notch/reply: the host runs tmux with a fixed argv, the text
// literal, then Enter); Stop presses the agent's interrupt key there (POST
// /agents-notch/stop). The host refuses what it must, and says why.
async function steer(box, stop) {
  const id = box?.dataset.session;
  if (!id) return;
  const field = box.querySelector('.steer-text');
  const text = field?.value ?? '';
  if (!stop && !text.trim()) {
    field?.focus();
    return;
  }
  let res;
  try {
    res = await fetch(stop ? '/agents-notch/stop' : '/agents-notch/reply', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(stop ? { sessionId: id } : { sessionId: id, text }),
    });
  } catch {
    toast('notch-web could not be reached.');
    return;
  }
  if (res.ok) {
    if (field) field.value = '';
    say(stop ? 'Sent Esc to the session.' : 'Typed into the session’s terminal.');
    return;
  }
  const why =
    {
      400: 'A reply is at most 8 KiB of text, with no control characters but new lines.',
      403: 'Reply and Stop are off on this host (--steer off).',
      404: 'No terminal pane is known for this session.',
      409: stop ? 'The session has no turn running.' : 'The session is not waiting for a reply.',
      410: 'The session’s terminal pane is gone.',
      429: 'Another reply is being typed: try again in a moment.',
      503: 'The machine that runs this session did not answer.',
    }[res.status] ?? `The terminal could not type into the session’s pane (HTTP ${res.status}).`;
  toast(why);
}

// A settled row's push has a Reply button: the board opened with
// ?reply=<row id> (or, with a board tab open, the service worker's
// message) opens that row's reply box. Nothing is typed or sent: the box
// is the board's own, and Send is the person's.
function initReplyLink() {
  const params = new URLSearchParams(location.search);
  const id = params.get('reply');
  if (id) {
    params.delete('reply');
    const rest = params.toString();
    history.replaceState(history.state, '', location.pathname + (rest ? '?' + rest : '') + location.hash);
    openReplyBox(id);
  }
  navigator.serviceWorker?.addEventListener('message', (e) => {
    if (e.data?.type === 'reply' && typeof e.data.session === 'string') openReplyBox(e.data.session);
  });
}

// openReplyBox unfolds the board and focuses row id's reply box, once the
// board shows it (a page opened from a push gets its rows from the stream);
// a row that takes no reply now is said so.
function openReplyBox(id) {
  const find = () => document.querySelector(`#board .steer[data-session="${CSS.escape(id)}"] .steer-text`);
  const focus = (box) => {
    openBoard('click');
    // A finished row folded in its group ("▸ 2 done") is unfolded first:
    // a hidden box takes no focus.
    const g = box.closest('.group');
    if (g && box.closest('.rows.folded') && !view.unfolded.has(g.id)) {
      view.unfolded.add(g.id);
      applyGroups();
      markClipped(document);
    }
    box.scrollIntoView({ block: 'center' });
    box.focus();
    seeRow(id);
  };
  const box = find();
  if (box) return focus(box);
  const watch = new MutationObserver(() => {
    const b = find();
    if (!b) return;
    watch.disconnect();
    clearTimeout(give);
    focus(b);
  });
  const give = setTimeout(() => {
    watch.disconnect();
    toast('That session no longer takes a reply from the board.');
  }, 5000);
  watch.observe(document.body, { childList: true, subtree: true });
}

// ---------- question cards ----------

// The answers of a question card, as POST /agents-notch/approve takes
// them: per question (in order), the indexes of the options ticked and,
// when its Other is ticked, the words typed there. The host checks them
// against the card's questions (one option or words for a single choice).
window.notchCardAnswers = (card) =>
  [...card.querySelectorAll('.card-q')].map((q) => {
    const other = q.querySelector('.card-other-pick');
    return {
      options: [...q.querySelectorAll('input.card-choice:checked')].map((i) => Number(i.value)),
      other: other?.checked ? (q.querySelector('.card-other-text')?.value ?? '') : '',
    };
  });

// ---------- go to terminal ----------

// A row whose session runs in tmux on this host has Go to terminal: the
// host switches the tmux client to its pane (POST /agents-notch/terminal,
// a fixed tmux argv on the host, never a shell). Any other door (WezTerm,
// kitty) is a command this page copies, to run by hand; the button says
// which it does.
async function goToTerminal(btn) {
  const row = btn.closest('.row');
  const id = row?.dataset.sessionId;
  const cmd = btn.dataset.command ?? '';
  if (!id) return;
  seeRow(id);
  if (btn.dataset.door !== 'tmux') {
    copyCommand(cmd, 'Copied');
    return;
  }
  let res;
  try {
    res = await fetch('/agents-notch/terminal', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: id }),
    });
  } catch {
    toast('Could not go to the terminal: notch-web could not be reached.');
    return;
  }
  const body = await res.json().catch(() => ({}));
  if (res.ok && body.attach) {
    copyCommand(body.attach, 'No tmux client is attached; the session’s pane is current. Copied');
  } else if (res.ok) {
    say(body.switched ? 'Switched tmux to the session’s pane.' : 'Selected the session’s pane in tmux.');
  } else if (res.status === 410) {
    toast('The session’s tmux pane is gone.');
  } else if (res.status === 429) {
    say('Another Go to terminal is running: try again in a moment.');
  } else if (res.status === 404 || res.status === 409) {
    copyCommand(cmd, 'notch-web cannot switch to it here. Copied');
  } else {
    toast(`Could not go to the terminal: tmux failed (HTTP ${res.status}).`);
  }
}

// copyCommand puts a command on the clipboard and says so; where the
// browser refuses the clipboard, it shows the command to copy by hand.
async function copyCommand(cmd, lead) {
  if (!cmd) return;
  try {
    await navigator.clipboard.writeText(cmd);
    say(`${lead} “${cmd}”: run it in a terminal on the session’s machine.`);
  } catch {
    toast(`Run this in a terminal to get there: ${cmd}`, 'info');
    announce(`Run this in a terminal to get there: ${cmd}`);
  }
}

// ---------- a row's short history ----------

// Every row has a ▸ that unfolds its last events under it. The server keeps
// them (in memory, per live session) and draws them only when asked (GET
// /agents-notch/history), so the board's own render and its patches carry
// none: the toggle and the unfolded history are laid over the board here
// after every patch, like the folds and the unseen marks. Which rows are
// unfolded is this viewer's own, in memory.
const hist = { open: new Set(), node: new Map(), key: new Map(), busy: new Set(), focus: '' };

// A patch of a row's actions takes the toggle with it: the one that had the
// focus gets it back when it is laid again.
document.addEventListener('focusin', (e) => {
  const b = isEl(e.target) ? e.target.closest('.hist-toggle') : null;
  hist.focus = b?.closest('.row')?.dataset.sessionId ?? '';
});

const histID = (r) => `${r.id}-hist`;

// rowKey changes when the row's status, activity or steps do: the moment
// to ask for its history again.
function rowKey(r) {
  const l2 = r.querySelector('.line2')?.innerHTML ?? '';
  return `${r.dataset.status}|${l2.replace(/<time[^>]*>[^<]*<\/time>/g, '')}`;
}

function applyHistory() {
  const live = new Set();
  for (const r of document.querySelectorAll('#board .row')) {
    const id = r.dataset.sessionId;
    if (!id) continue;
    live.add(id);
    const acts = r.querySelector('.row-actions');
    let btn = acts?.querySelector(':scope > .hist-toggle');
    if (acts && !btn) {
      btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'act hist-toggle';
      btn.setAttribute('aria-controls', histID(r));
      btn.innerHTML = '<span aria-hidden="true">▸</span>';
      acts.prepend(btn);
      if (hist.focus === id && focusLost()) btn.focus();
    }
    const open = hist.open.has(id);
    if (btn) {
      btn.setAttribute('aria-expanded', String(open));
      btn.setAttribute('aria-label', `History of ${rowText(r, '.title') || rowText(r, '.project') || id}`);
      btn.firstElementChild.textContent = open ? '▾' : '▸';
    }
    const item = document.getElementById(`${histID(r)}-item`);
    if (!open) {
      item?.remove();
      continue;
    }
    if (!item) {
      const li = document.createElement('li');
      li.className = 'hist-item';
      li.id = `${histID(r)}-item`;
      const node = hist.node.get(id);
      if (node) li.append(node);
      r.after(li);
    }
    if (hist.key.get(id) !== rowKey(r)) loadHistory(r);
  }
  for (const id of hist.open) {
    if (!live.has(id)) {
      hist.open.delete(id);
      hist.node.delete(id);
      hist.key.delete(id);
    }
  }
  fitRows();
}

async function loadHistory(r) {
  const id = r.dataset.sessionId;
  if (hist.busy.has(id)) return;
  hist.busy.add(id);
  hist.key.set(id, rowKey(r));
  try {
    const res = await fetch(`/agents-notch/history?session=${encodeURIComponent(id)}`, { cache: 'no-store' });
    if (!res.ok) throw new Error(String(res.status));
    // Parsed inert (DOMParser runs no script); the server escaped it all.
    const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
    const node = doc.body.firstElementChild;
    if (!node?.classList.contains('hist')) throw new Error('not a history');
    const fresh = document.adoptNode(node);
    for (const t of fresh.querySelectorAll('time.hist-at')) {
      const at = Date.parse(t.getAttribute('datetime') ?? '');
      if (Number.isFinite(at)) {
        t.textContent = new Date(at - skew).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
      }
    }
    hist.node.set(id, fresh);
    const li = document.getElementById(`${fresh.id}-item`);
    if (li && hist.open.has(id)) li.replaceChildren(fresh);
  } catch {
    hist.key.delete(id); // asked again at the next patch
  } finally {
    hist.busy.delete(id);
  }
  fitRows();
  markClipped(document);
}

function toggleHistory(btn) {
  const r = btn.closest('.row');
  const id = r?.dataset.sessionId;
  if (!id) return;
  if (hist.open.has(id)) {
    hist.open.delete(id);
  } else {
    hist.open.add(id);
    seeRow(id); // an unfolded history is a row looked at
  }
  applyHistory();
  fitPopout();
}

// ---------- the lane: "Waiting on you" ----------

// The server draws the lane (every row that needs you, oldest wait first)
// with each entry's cards unfolded; which entries this viewer folded, and
// which one the keys are on, are kept here, in memory, and laid over the
// lane again after every patch. A folded entry that leaves the lane (it
// was answered) is forgotten with it.
const lane = { folded: new Set(), current: '' };

const laneItems = () => [...document.querySelectorAll('#lane .lane-item')];
const laneItem = (id) => laneItems().find((li) => li.dataset.sessionId === id);

function applyLane() {
  const items = laneItems();
  const ids = new Set(items.map((li) => li.dataset.sessionId));
  for (const id of lane.folded) if (!ids.has(id)) lane.folded.delete(id);
  if (lane.current && !ids.has(lane.current)) lane.current = '';
  for (const li of items) {
    const id = li.dataset.sessionId;
    const folded = lane.folded.has(id);
    li.toggleAttribute('data-folded', folded);
    li.toggleAttribute('data-current', id === lane.current);
    const go = li.querySelector(':scope > .lane-go');
    if (go?.hasAttribute('aria-expanded')) go.setAttribute('aria-expanded', String(!folded));
  }
}

// orig is the page's own node for a node of the pop-out's copy.
const orig = (n) => (isEl(n) && n.ownerDocument !== document ? pop.origOf.get(n) ?? null : n);

// onLaneHead: an entry's head folds and unfolds its cards; one with no
// card (a harness's question) goes to its row.
function onLaneHead(go) {
  const li = go.closest('.lane-item');
  const id = li?.dataset.sessionId;
  if (!id) return;
  lane.current = id;
  if (!go.hasAttribute('aria-expanded')) {
    showRow(id);
    return;
  }
  if (lane.folded.has(id)) lane.folded.delete(id);
  else lane.folded.add(id);
  applyLane();
  fitPopout();
}

// firstAnswer is the control a card's keyboard path starts on: a
// question's first choice, else its first button.
const firstAnswer = (li) =>
  li.querySelector('.card[data-state="waiting"] :is(input.card-choice, input.card-other-pick, .card-btn)') ??
  li.querySelector('.lane-go');

// openLaneCard unfolds an entry and puts focus on its first answer (an
// entry with no card: on its row in the groups).
function openLaneCard(li) {
  const id = li.dataset.sessionId;
  lane.current = id;
  lane.folded.delete(id);
  applyLane();
  fitPopout();
  if (!li.querySelector('.lane-cards')) {
    showRow(id);
    return;
  }
  li.scrollIntoView({ block: 'nearest' });
  focusIn(firstAnswer(li));
}

// expectAnswered: a click on a card's answer in the lane; when the patch
// takes the entry away, settleFocus brings the next.
function expectAnswered(btn) {
  const li = btn.closest('.lane-item');
  if (!li) return;
  pending = { kind: 'lane', id: li.dataset.sessionId, index: laneItems().indexOf(li), at: performance.now() };
}

// moveLane puts focus on the next (step 1) or the previous (-1) entry's
// head, from the entry the focus is in or the keys were last on.
function moveLane(step, doc) {
  const items = laneItems();
  if (!items.length) {
    say('Nothing waits on you.');
    return;
  }
  if (!ui.open && !ui.pinned) openBoard('click');
  const at = orig(doc.activeElement)?.closest?.('.lane-item')?.dataset.sessionId || lane.current;
  const i = items.findIndex((li) => li.dataset.sessionId === at);
  const next = i < 0 ? (step > 0 ? items[0] : items[items.length - 1]) : items[(i + step + items.length) % items.length];
  lane.current = next.dataset.sessionId;
  applyLane();
  next.scrollIntoView({ block: 'nearest' });
  focusIn(next.querySelector('.lane-go'));
}

// The keys: j / k the next and previous waiting entry, o its card, Enter
// in a question's choices submits it, Esc folds the card the focus is in,
// ? the keys. None is taken while typing in a field (but Enter in a
// card's own text, which sends, and Esc, which leaves it).
function onLaneKey(e, doc) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
  const t = orig(e.target);
  const typing = editable(e.target) && !/^(radio|checkbox)$/.test(e.target.type ?? '');
  const li = t?.closest?.('.lane-item');
  if (e.key === 'Escape' && li?.querySelector('.lane-cards')?.contains(t)) {
    e.preventDefault();
    e.stopImmediatePropagation();
    lane.folded.add(li.dataset.sessionId);
    lane.current = li.dataset.sessionId;
    applyLane();
    fitPopout();
    focusIn(li.querySelector('.lane-go'));
    return;
  }
  if (e.key === 'Enter' && t?.closest?.('.card-question') && t.matches('input.card-choice, input.card-other-pick, input.card-other-text')) {
    // Enter submits the question the focused answer belongs to.
    e.preventDefault();
    t.closest('.card').querySelector('.card-btn.allow')?.click();
    return;
  }
  if (typing) return;
  switch (e.key) {
    case 'j':
      e.preventDefault();
      moveLane(1, doc);
      break;
    case 'k':
      e.preventDefault();
      moveLane(-1, doc);
      break;
    case 'o': {
      const item = li ?? laneItem(lane.current) ?? laneItems()[0];
      if (!item) return;
      e.preventDefault();
      if (!ui.open && !ui.pinned) openBoard('click');
      openLaneCard(item);
      break;
    }
    case '?':
      e.preventDefault();
      showKeys(doc);
      break;
  }
}

function initLane(doc) {
  doc.addEventListener('keydown', (e) => onLaneKey(e, doc), { capture: true });
}

// showKeys opens the sheet of keys (a modal dialog: Esc or its button
// closes it, and focus goes back where it was).
function showKeys(doc) {
  let d = doc.getElementById('keys-help');
  if (!d) {
    d = doc.createElement('dialog');
    d.id = 'keys-help';
    d.className = 'keys-help';
    d.setAttribute('aria-labelledby', 'keys-help-h');
    const h = doc.createElement('h2');
    h.id = 'keys-help-h';
    h.textContent = 'Keys';
    const dl = doc.createElement('dl');
    for (const [keys, what] of [
      [['j', 'k'], 'the next / the previous session waiting on you (oldest first)'],
      [['o'], 'open its card: focus on its first answer'],
      [['Enter'], 'send the focused answer (in a question: submit it)'],
      [['Esc'], 'fold the card; in the filter, empty it'],
      [['/'], 'filter the sessions'],
      [['?'], 'this sheet'],
    ]) {
      const dt = doc.createElement('dt');
      keys.forEach((k, i) => {
        if (i) dt.append(' ');
        const kbd = doc.createElement('kbd');
        kbd.textContent = k;
        dt.append(kbd);
      });
      const dd = doc.createElement('dd');
      dd.textContent = what;
      dl.append(dt, dd);
    }
    const p = doc.createElement('p');
    p.textContent = 'No key is taken while you type in a field.';
    const close = doc.createElement('button');
    close.type = 'button';
    close.textContent = 'Close';
    close.addEventListener('click', () => d.close());
    d.append(h, dl, p, close);
    doc.body.append(d);
  }
  if (d.open) d.close();
  else d.showModal();
}

// ---------- groups, folds and the filter ----------

// The board groups its rows by project and folds each group's finished rows
// into a count (the server draws both). Which folds are open and what the
// filter holds are this viewer's own: kept here, in memory only, and laid
// over the board again after every patch.
const view = { filter: '', unfolded: new Set() };

// rowMatches: the filter is words of the row's title or project (its own,
// or its group's), any case.
function rowMatches(r, group, q) {
  if (!q) return true;
  const text = `${rowText(r, '.title')} ${rowText(r, '.project')} ${group}`.toLowerCase();
  return q.split(/\s+/).every((w) => text.includes(w));
}

function applyGroups() {
  const q = view.filter.trim().toLowerCase();
  const box = $('filter');
  if (box && box.value !== view.filter) box.value = view.filter;
  let shown = 0;
  for (const g of document.querySelectorAll('#board .group')) {
    const name = g.querySelector('.group-name:not([data-none])')?.textContent ?? '';
    let any = false;
    for (const r of g.querySelectorAll('.row')) {
      const hit = rowMatches(r, name, q);
      r.toggleAttribute('data-filtered', !hit);
      if (hit) any = true;
    }
    g.toggleAttribute('data-filtered', !any);
    if (any) shown++;
    const fold = g.querySelector('.fold');
    const list = fold && document.getElementById(fold.getAttribute('aria-controls'));
    if (fold && list) {
      // A filter that finds a folded row shows it.
      const open = view.unfolded.has(g.id) || (!!q && !!list.querySelector('.row:not([data-filtered])'));
      fold.setAttribute('aria-expanded', String(open));
      list.hidden = !open;
    }
  }
  const none = $('no-match');
  if (none) none.hidden = !q || shown > 0 || !document.querySelector('#board .group');
  fitRows();
}

// fitRows makes the list show maxRows sessions (the big bot counts as one)
// before it scrolls, as the setting says, whatever the group headings, folds
// and unfolded histories between them take: the stylesheet's height counts
// rows alone, so a grouped board showed fewer. The list ends at the bottom
// of its last row that fits; with no more rows than that it takes them all.
//
// The dashboard (the stylesheet's --fit-rows: off) shows every row: the
// page scrolls, not the list.
function fitRows() {
  for (const list of document.querySelectorAll('#board .rows-scroll')) {
    const cs = getComputedStyle(list);
    if (cs.getPropertyValue('--fit-rows').trim() === 'off') {
      if (list.style.maxHeight) list.style.maxHeight = '';
      continue;
    }
    const n = parseInt(cs.getPropertyValue('--max-rows'), 10) - 1;
    const box = list.getBoundingClientRect();
    if (!(n > 0) || !list.offsetHeight) continue; // folded: measured when it opens
    const rows = [...list.querySelectorAll('.row')].filter((r) => r.getClientRects().length > 0);
    let h = 'none';
    if (rows.length > n) {
      const scale = box.height / list.offsetHeight || 1; // an opening animation's transform
      const bottom = (rows[n - 1].getBoundingClientRect().bottom - box.top) / scale;
      h = `${Math.ceil(bottom + list.scrollTop - list.clientTop)}px`;
    }
    if (list.style.maxHeight !== h) list.style.maxHeight = h;
  }
}

function onFold(btn) {
  const g = btn.closest('.group');
  if (!g) return;
  if (btn.getAttribute('aria-expanded') === 'true') view.unfolded.delete(g.id);
  else view.unfolded.add(g.id);
  applyGroups();
  markClipped(document);
  fitPopout();
}

// editable reports whether a key typed at el is text for it.
const editable = (el) => isEl(el) && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));

// focusFilter unfolds the board and puts the caret in the filter ("/").
function focusFilter() {
  if (!ui.open && !ui.pinned) openBoard('click');
  const box = $('filter');
  if (!box) return;
  box.focus();
  box.select();
}

function initGroups() {
  document.addEventListener('input', (e) => {
    if (e.target?.id !== 'filter') return;
    view.filter = e.target.value.slice(0, 200);
    applyGroups();
    markClipped(document);
  });
  document.addEventListener(
    'keydown',
    (e) => {
      if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !editable(e.target)) {
        e.preventDefault();
        focusFilter();
      } else if (e.key === 'Escape' && e.target?.id === 'filter' && view.filter) {
        // The first Escape empties the filter; the next folds the pop-out.
        e.stopImmediatePropagation();
        view.filter = '';
        applyGroups();
      }
    },
    { capture: true },
  );
}

// ---------- the title and the icon ----------

const baseTitle = document.title;
const DOT = {
  working: '#60a5fa',
  attention: '#fbbf24',
  error: '#f87171',
  done: '#4ade80',
  idle: '#9ca3af',
  unknown: '#6b7280',
};
let iconStatus = '';

// applyTitle puts the count that needs you in the title, "(2) needs you ·
// notch", and the summary's dot in the icon; unknown shows neither count nor
// colour (rule 3).
function applyTitle() {
  const unknown = isUnknown();
  const needs = Number($('tab')?.dataset.needs ?? 0);
  let t = baseTitle;
  if (unknown) t = 'status unknown · notch';
  else if (needs > 0) {
    // the oldest wait, as the lane's first entry (or the island) ticks it
    const wait = (document.querySelector('#lane time.wait') ?? document.querySelector('#tab time.wait'))?.textContent;
    t = wait ? `(${needs}) needs you · ${wait} · notch` : `(${needs}) needs you · notch`;
  }
  if (document.title !== t) document.title = t;

  const status = unknown ? 'unknown' : $('tab')?.querySelector('.dot')?.dataset.status || 'idle';
  if (status === iconStatus) return;
  iconStatus = status;
  const fill = Object.hasOwn(DOT, status) ? DOT[status] : DOT.idle;
  const mark =
    status === 'unknown'
      ? '<text x="16" y="21.5" font-family="sans-serif" font-size="15" font-weight="700" text-anchor="middle" fill="#f3f4f6">?</text>'
      : '';
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    `<circle cx="16" cy="16" r="13" fill="${fill}" stroke="#0f1117" stroke-width="3"/>${mark}</svg>`;
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  link.type = 'image/svg+xml';
  link.href = 'data:image/svg+xml,' + encodeURIComponent(svg);
  link.dataset.status = status;
}

// ---------- notifications ----------

// The host decides which rises are alerts (host.Alerter: the rising edge
// into needs-you or failed, or done with alerts "all"; never a subagent; at
// most one per 5 s across sessions) and names the newest on #board-alert.
// This page plays one it has not seen — a sound and, when allowed, a
// notification — unless the board has the focus. One present at load is
// not news.
let alertSeq = null;

// Some browsers have Notification but show one only from a service worker
// (Chrome on Android): the first refusal says so, and the bell stops
// promising.
let constructorRefused = false;
const canNotify = () => 'Notification' in window && window.isSecureContext && !constructorRefused;

// looking reports whether the human is at the board: the page is visible
// and has the focus, or the popped-out board has it.
const looking = () =>
  (document.visibilityState === 'visible' && document.hasFocus()) ||
  (pop.kind === 'pip' && !!pop.win?.document.hasFocus());

function rowText(r, sel) {
  return (r.querySelector(sel)?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

// rowProjectName is the row's project: its own when it shows one (it is
// not its group's), else its group's heading.
function rowProjectName(r) {
  return rowText(r, '.project') || r.closest('.group')?.querySelector('.group-name:not([data-none])')?.textContent || '';
}

function rowName(r) {
  return rowText(r, '.title') || rowProjectName(r) || r.dataset.sessionId;
}

function watchAlert() {
  const mark = $('board-alert');
  const seq = mark?.dataset.seq ?? '';
  if (alertSeq === null || isUnknown()) {
    alertSeq = seq;
    return;
  }
  if (seq === alertSeq) return;
  alertSeq = seq;
  if (!seq || looking()) return;
  const status = mark.dataset.status;
  playSound(status);
  const r = [...document.querySelectorAll('#board .row[data-session-id]')].find((x) => x.dataset.sessionId === mark.dataset.session);
  if (r && canNotify() && Notification.permission === 'granted') notify(r);
}

// ---------- sounds ----------

// The alert's sound, drawn with the Web Audio API (no audio files): a rising
// pair for "needs you", a falling pair for a failure, one soft note for
// done. Whether this browser plays them is its own preference (like the
// notification permission), kept in its storage and set in the pane: a
// sound is this device's business, not a setting of the notch.
const SOUND_KEY = 'notch:sounds';
const soundsOn = () => {
  try {
    return localStorage.getItem(SOUND_KEY) !== 'off';
  } catch {
    return true;
  }
};
const TUNES = {
  attention: [
    [660, 0, 0.12],
    [990, 0.14, 0.2],
  ],
  error: [
    [440, 0, 0.14],
    [294, 0.16, 0.24],
  ],
  done: [[784, 0, 0.22]],
};
let audio = null;
function playSound(status) {
  const tune = TUNES[status];
  if (!tune || !soundsOn()) return;
  try {
    audio ??= new AudioContext();
    if (audio.state === 'suspended') audio.resume().catch(() => {});
    const t0 = audio.currentTime + 0.02;
    for (const [hz, at, len] of tune) {
      const o = audio.createOscillator();
      const g = audio.createGain();
      o.type = 'sine';
      o.frequency.value = hz;
      g.gain.setValueAtTime(0.0001, t0 + at);
      g.gain.exponentialRampToValueAtTime(0.18, t0 + at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      o.connect(g).connect(audio.destination);
      o.start(t0 + at);
      o.stop(t0 + at + len + 0.02);
    }
  } catch {
    // no audio here: the notification and the unseen mark still tell
  }
}
// A browser starts audio only after a gesture on the page: the first one
// readies it, so a later alert can sound.
for (const type of ['pointerdown', 'keydown']) {
  addEventListener(
    type,
    () => {
      if (!soundsOn() || audio) return;
      try {
        audio = new AudioContext();
      } catch {
        // none
      }
    },
    { once: true, capture: true },
  );
}

// ---------- unseen marks ----------

// A row that became done or failed while the human was not looking at it
// carries an unseen mark until it is looked at: in view on the unfolded
// board while the page has the focus, or its history unfolded, or opened.
// The marks are this browser's (its storage, keyed by session and the
// moment the row settled), so they survive a reload and differ per browser.
const UNSEEN_KEY = 'notch:unseen';
const lastStatus = new Map(); // session id → status at the last patch
let statusReady = false;
let unseen = loadUnseen();

function loadUnseen() {
  try {
    const v = JSON.parse(localStorage.getItem(UNSEEN_KEY) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
function saveUnseen() {
  try {
    localStorage.setItem(UNSEEN_KEY, JSON.stringify(unseen));
  } catch {
    // storage full or off: the marks last this page's life
  }
}
const settledAt = (r) => `${r.dataset.status}@${r.querySelector('time.since')?.getAttribute('datetime') ?? ''}`;

// inView reports whether the human can see row r now.
function inView(r) {
  if (!looking() || !(ui.open || ui.pinned) || pop.kind === 'window' || isUnknown()) return false;
  if (r.closest('[hidden],[data-filtered]')) return false;
  const box = r.getBoundingClientRect();
  const list = r.closest('.rows-scroll')?.getBoundingClientRect();
  if (!list || box.height === 0) return false;
  const top = Math.max(box.top, list.top, 0);
  const bottom = Math.min(box.bottom, list.bottom, innerHeight);
  return bottom - top >= box.height / 2;
}

function seeRow(id) {
  if (!(id in unseen)) return;
  delete unseen[id];
  saveUnseen();
  applyUnseen();
}

// watchUnseen marks the rows that settled since the last patch unless they
// are in view, and forgets marks of rows that are gone or moved on.
function watchUnseen() {
  if (isUnknown()) return;
  const rows = document.querySelectorAll('#board .row[data-session-id]');
  const present = new Set();
  let changed = false;
  for (const r of rows) {
    const id = r.dataset.sessionId;
    const status = r.dataset.status;
    present.add(id);
    const settled = status === 'done' || status === 'error';
    const before = lastStatus.get(id);
    lastStatus.set(id, status);
    if (!settled) {
      if (id in unseen) {
        delete unseen[id];
        changed = true;
      }
      continue;
    }
    if (id in unseen && unseen[id] !== settledAt(r)) {
      delete unseen[id]; // settled again since: a new moment, judged afresh
      changed = true;
    }
    if (statusReady && before !== status && !(id in unseen) && !inView(r)) {
      unseen[id] = settledAt(r);
      changed = true;
    }
  }
  statusReady = true;
  for (const id of Object.keys(unseen)) {
    if (!present.has(id)) {
      delete unseen[id];
      changed = true;
    }
  }
  if (changed) saveUnseen();
  applyUnseen();
}

// lookAtRows clears the marks of the rows in view (on a tick and when the
// board is unfolded or the page gets the focus).
function lookAtRows() {
  const ids = Object.keys(unseen);
  if (!ids.length) return;
  let changed = false;
  for (const r of document.querySelectorAll('#board .row[data-unseen]')) {
    if (inView(r)) {
      delete unseen[r.dataset.sessionId];
      changed = true;
    }
  }
  if (changed) {
    saveUnseen();
    applyUnseen();
  }
}

// applyUnseen lays the marks over the board: the row's mark, the fold's
// count of unseen, the tab's count and its name.
function applyUnseen() {
  let n = 0;
  for (const r of document.querySelectorAll('#board .row[data-session-id]')) {
    const on = r.dataset.sessionId in unseen;
    if (on) n++;
    r.toggleAttribute('data-unseen', on);
    let mark = r.querySelector(':scope .unseen-mark');
    if (on && !mark) {
      mark = document.createElement('span');
      mark.className = 'unseen-mark';
      mark.textContent = 'new';
      mark.title = 'Finished while you were away';
      (r.querySelector('.line1') ?? r.querySelector('.line2'))?.prepend(mark);
    } else if (!on && mark) mark.remove();
  }
  for (const fold of document.querySelectorAll('#board .fold')) {
    const list = document.getElementById(fold.getAttribute('aria-controls'));
    const k = list ? list.querySelectorAll('.row[data-unseen]').length : 0;
    let span = fold.querySelector('.fold-unseen');
    if (k && !span) {
      span = document.createElement('span');
      span.className = 'fold-unseen';
      fold.append(span);
    }
    if (span) {
      if (k) span.textContent = ` · ${k} new`;
      else span.remove();
    }
  }
  const tab = $('tab');
  if (!tab) return;
  let badge = tab.querySelector('.unseen-count');
  if (n && !isUnknown()) {
    if (!badge) {
      badge = document.createElement('span');
      badge.className = 'unseen-count';
      badge.setAttribute('aria-hidden', 'true');
      tab.querySelector('.counts')?.after(badge);
    }
    badge.textContent = `${n} new`;
  } else badge?.remove();
  // The tab's name is the summary phrase; unseen results are told apart.
  const name = tab.querySelector('.tab-name');
  if (name && name.textContent !== UNKNOWN_NAME) {
    const base = name.textContent.replace(/, \d+ unseen$/, '');
    const want = n ? `${base}, ${n} unseen` : base;
    if (name.textContent !== want) name.textContent = want;
  }
}

addEventListener('storage', (e) => {
  if (e.key === UNSEEN_KEY) {
    unseen = loadUnseen();
    if (page === 'board') applyUnseen();
  }
});
addEventListener('focus', () => page === 'board' && lookAtRows());

function notify(r) {
  const id = r.dataset.sessionId;
  const name = rowName(r);
  const status = r.dataset.status;
  const title =
    status === 'attention' ? `${name} needs you` : status === 'error' ? `${name} failed` : `${name} is done`;
  const body = [rowProjectName(r), rowText(r, '.approval') || rowText(r, '.last')].filter(Boolean).join(' · ');
  let n;
  try {
    n = new Notification(title, {
      body,
      // One notification per session on screen, however many tabs raise it.
      tag: `agents-notch:${id}`,
      icon: '/agents-notch/static/icon-192.png',
      lang: 'en',
    });
  } catch {
    constructorRefused = true; // only through a service worker, which notch-web has none of
    applyTools();
    return;
  }
  n.addEventListener('click', () => {
    window.focus();
    n.close();
    showRow(id);
  });
}

// showRow unfolds the board at a session's row, as a click on the tab would,
// and puts focus there.
function showRow(id) {
  const r = [...document.querySelectorAll('#board .row[data-session-id]')].find((x) => x.dataset.sessionId === id);
  openBoard('click');
  if (!r) return;
  r.scrollIntoView({ block: 'nearest' });
  flash = { id, until: performance.now() + 2500 };
  applyFlash();
  focusIn(r.querySelector('.act:not(.hist-toggle)') ?? r.closest('.rows-scroll'));
}

let flash = { id: '', until: 0 };
function applyFlash() {
  for (const r of document.querySelectorAll('#board .row[data-flash]')) {
    if (r.dataset.sessionId !== flash.id || performance.now() > flash.until) r.removeAttribute('data-flash');
  }
  if (!flash.id || performance.now() > flash.until) return;
  for (const r of document.querySelectorAll('#board .row[data-session-id]')) {
    if (r.dataset.sessionId === flash.id) r.setAttribute('data-flash', '');
  }
}

// ---------- the bell ----------

function bellState() {
  return canNotify() ? Notification.permission : 'unsupported';
}

function bellLabel() {
  switch (bellState()) {
    case 'default':
      return 'Notify me when a session needs me';
    case 'denied':
      return 'Notifications are blocked in this browser’s site settings';
    case 'granted':
      switch (boardSettings().alerts) {
        case 'off':
          return 'Notifications allowed, but the alert island setting is None';
        case 'needs-you':
          return 'Notifications on: questions and failures, while the board is not in front';
        default:
          return 'Notifications on: questions, failures and finishes, while the board is not in front';
      }
  }
  return 'Notifications are not available here';
}

function initBell() {
  // Follow a change made in the browser's site settings.
  navigator.permissions
    ?.query({ name: 'notifications' })
    .then((p) => p.addEventListener('change', () => applyTools()))
    .catch(() => {});
}

// onBell asks for permission — only ever from this click, never on load —
// or says where things stand.
function onBell() {
  if (bellState() === 'default') {
    Notification.requestPermission().then(() => {
      applyTools();
      say(bellLabel());
    });
    return;
  }
  say(bellLabel());
}

// applyTools shows the sheet's controls this browser can use and names the
// bell's permission; a patch of the sheet resets them, so after every patch.
function applyTools() {
  const bell = $('bell');
  if (bell) {
    const st = bellState();
    bell.hidden = st === 'unsupported';
    bell.dataset.perm = st;
    const label = bellLabel();
    bell.setAttribute('aria-label', label);
    bell.title = label;
  }
  const po = $('popout');
  if (po) {
    po.hidden = false;
    const label = popoutPage || pop.kind ? 'Put the board back in the page' : 'Pop out the board: a small window on top';
    po.setAttribute('aria-label', label);
    po.title = label;
    po.dataset.popped = String(popoutPage || !!pop.kind);
  }
}

// ---------- the pop-out ----------
//
// Where the browser has Document Picture-in-Picture, the board shows in an
// always-on-top window: a mirror of #board (and of the live region and the
// toast) that follows every change the page's own stream makes, through a
// MutationObserver. Datastar patches by document.getElementById in this
// page, so the real board stays here, hidden, and the pop-out's controls
// forward their clicks to it. Elsewhere the pop-out is a small window of
// its own on ?popout=1, with its own stream.

const pop = {
  kind: '', // '' | 'pip' | 'window'
  win: null,
  mirrorOf: new WeakMap(), // original node -> its copy in the pop-out
  origOf: new WeakMap(), // copy -> original
  observer: null,
  tick: 0,
  folded: { w: 0, h: 0 }, // the folded tab's size, measured before popping out
};
// FOLDED_MIN is the smallest folded pop-out, whatever the tab measures.
const FOLDED_MIN = { w: 240, h: 48 };

async function popOut() {
  // The pop-out opens folded, sized to the folded tab.
  ui.pinned = false;
  ui.ghost = false;
  foldBoard();
  const notch = $('notch');
  const r = notch?.getBoundingClientRect();
  const w = Math.max(FOLDED_MIN.w, Math.ceil(r?.width ?? 0));
  const h = Math.max(FOLDED_MIN.h, Math.ceil(r?.height ?? 0));
  pop.folded = { w, h };
  if (window.documentPictureInPicture?.requestWindow) {
    try {
      const win = await window.documentPictureInPicture.requestWindow({ width: w, height: h });
      startMirror(win);
      return;
    } catch {
      // refused (e.g. no user activation): fall through to a window
    }
  }
  const win = window.open('/agents-notch/?popout=1', 'agents-notch-popout', `popup,width=${w},height=${h}`);
  if (!win) {
    toast('The browser blocked the pop-out window.', 'info');
    return;
  }
  pop.kind = 'window';
  pop.win = win;
  applyUI();
  afterPatch();
}

// popIn closes the pop-out; the board comes back to the page.
function popIn() {
  const w = pop.win;
  if (w && !w.closed) w.close();
  poppedIn();
}

function poppedIn() {
  if (!pop.kind) return;
  pop.observer?.disconnect();
  pop.observer = null;
  clearInterval(pop.tick);
  pop.kind = '';
  pop.win = null;
  pop.mirrorOf = new WeakMap();
  pop.origOf = new WeakMap();
  // Back in the page, the board is a page again: unfolded, no pin, no ghost.
  clearTimeout(holdTimer);
  clearTimeout(closeTimer);
  Object.assign(ui, { open: true, by: 'page', pinned: false, ghost: false });
  applyUI();
  afterPatch();
  // Focus comes back to the control that sent the board away.
  (ui.open || ui.pinned ? $('popout') : $('tab'))?.focus();
}

// leavePopoutPage is the pop-out window's own "put it back": the window
// that opened it shows the board again when this one closes.
function leavePopoutPage() {
  if (window.opener) window.close();
  else location.assign('/agents-notch/');
}

function startMirror(win) {
  const doc = win.document;
  pop.kind = 'pip';
  pop.win = win;
  doc.documentElement.lang = 'en';
  doc.title = 'agents notch';
  for (const l of document.querySelectorAll('link[rel="stylesheet"]')) {
    const c = doc.createElement('link');
    c.rel = 'stylesheet';
    c.href = l.href;
    doc.head.append(c);
  }
  const main = doc.createElement('main');
  main.className = 'stage';
  const h1 = doc.createElement('h1');
  h1.className = 'sr-only';
  h1.textContent = 'agents notch';
  main.append(h1);
  for (const id of ['board', 'announce', 'toast']) {
    const o = $(id);
    if (o) main.append(mirror(o, doc));
  }
  doc.body.append(main);

  pop.observer = new MutationObserver(syncMirror);
  for (const id of ['board', 'announce', 'toast']) {
    const o = $(id);
    if (o) pop.observer.observe(o, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  pop.observer.observe(root, { attributes: true });

  // The pop-out's controls act on the real board here.
  doc.addEventListener('click', (e) => {
    const t = isEl(e.target) ? e.target : null;
    const ctl = t?.closest('button');
    const o = ctl && pop.origOf.get(ctl);
    if (!o) return;
    e.preventDefault();
    o.click();
  });
  doc.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') onEscape(doc);
  });
  initLane(doc);
  // The pop-out floats over other apps as the desktop window does: the
  // hover settings apply to the pointer there.
  doc.addEventListener(
    'pointermove',
    (e) => {
      if (e.pointerType !== 'touch') onPointer(e.clientX, e.clientY, doc);
    },
    { passive: true },
  );
  doc.documentElement.addEventListener('pointerleave', () => onPointer(-100, -100, doc));
  initTips(doc);
  win.addEventListener('pagehide', () => poppedIn(), { once: true });
  // This page may be hidden behind the pop-out, where its timers slow to
  // once a minute: the pop-out is visible, so its clock keeps the times,
  // the faces and the liveness check running.
  pop.tick = win.setInterval(tick, 250);
  applyUI();
  afterPatch();
}

// mirror copies node (deeply) into doc and remembers which copy is whose.
function mirror(node, doc) {
  const c = doc.importNode(node, false);
  pop.mirrorOf.set(node, c);
  pop.origOf.set(c, node);
  for (const k of node.childNodes) c.append(mirror(k, doc));
  return c;
}

// syncMirror applies what changed here to the copies: attributes, text, and
// children (kept where they already have a copy, so focus in the pop-out
// survives a patch of their siblings).
function syncMirror(records) {
  if (pop.kind !== 'pip') return;
  const doc = pop.win.document;
  for (const m of records) {
    if (m.target === root) continue;
    const c = pop.mirrorOf.get(m.target);
    if (!c) continue;
    if (m.type === 'attributes') {
      const v = m.target.getAttribute(m.attributeName);
      if (v === null) c.removeAttribute(m.attributeName);
      else c.setAttribute(m.attributeName, v);
    } else if (m.type === 'characterData') {
      c.data = m.target.data;
    } else {
      const want = Array.from(m.target.childNodes, (k) => pop.mirrorOf.get(k) ?? mirror(k, doc));
      const keep = new Set(want);
      for (const k of [...c.childNodes]) {
        if (!keep.has(k)) {
          k.remove();
          const o = pop.origOf.get(k);
          if (o && pop.mirrorOf.get(o) === k) pop.mirrorOf.delete(o);
        }
      }
      want.forEach((k, i) => {
        if (c.childNodes[i] !== k) c.insertBefore(k, c.childNodes[i] ?? null);
      });
    }
  }
  mirrorRoot();
  markClipped(doc);
  settleFocus();
}

// mirrorRoot copies the page's own state (open, pinned, live …) to the
// pop-out's <html>, at once, so the pop-out can be measured in the same turn.
function mirrorRoot() {
  if (pop.kind !== 'pip') return;
  const pr = pop.win.document.documentElement;
  for (const a of root.attributes) {
    if (a.name.startsWith('data-') && a.name !== 'data-popped' && pr.getAttribute(a.name) !== a.value) {
      pr.setAttribute(a.name, a.value);
    }
  }
  for (const a of [...pr.attributes]) {
    if (a.name.startsWith('data-') && a.name !== 'data-popout' && !root.hasAttribute(a.name)) pr.removeAttribute(a.name);
  }
  pr.setAttribute('data-popout', '');
}

// fitPopout sizes the pop-out to the tab when folded and to the board when
// unfolded. Resizing needs the click that unfolded it; a window that cannot
// be resized keeps its size and scrolls.
function fitPopout() {
  const win = pop.kind === 'pip' ? pop.win : popoutPage ? window : null;
  if (!win) return;
  const doc = win.document;
  const notch = doc.getElementById('notch');
  if (!notch) return;
  const open = ui.open || ui.pinned;
  const folded = pop.folded.w ? pop.folded : { w: FOLDED_MIN.w, h: FOLDED_MIN.h };
  // Unfolded, as wide as the board's sheet (40em); rows have a fixed height,
  // so the height does not depend on the width.
  const em = parseFloat(win.getComputedStyle(doc.getElementById('board')).fontSize);
  const w = Math.ceil(open ? Math.max(folded.w, 40 * em) : folded.w);
  const h = Math.ceil(open ? Math.max(folded.h, notch.scrollHeight) : folded.h);
  // resizeTo sets the outer size: add the window's frame (never less than
  // none — an emulated viewport can be larger than its window).
  const frameW = Math.max(0, win.outerWidth - win.innerWidth);
  const frameH = Math.max(0, win.outerHeight - win.innerHeight);
  try {
    win.resizeTo(w + frameW, h + frameH);
  } catch {
    // no user activation: the window keeps its size
  }
}

// ---------- full text of truncated text ----------

// CLIPPED are the pieces of text that end in an ellipsis when the space is
// short. One that is cut short becomes focusable (unless it sits inside a
// button) and shows its whole text in a tip on hover and on focus — a tap
// on a phone focuses it.
const CLIPPED = [
  '.title',
  '.line2 > .project',
  '.line2 > .approval',
  '.line2 > .activity',
  '.line2 > .last',
  '.line2 > .steps',
  '.line2 > .blocked',
  '.lane-name',
  '.lane-sub',
  '.lane-where > *',
  '.lane-ask',
  '.bigbot-name',
  '.bigbot-state .reason',
  '.bigbot-state .label',
  '.island-name',
  '.group-name',
].join(',');

function markClipped(doc) {
  if (doc === document && pop.kind === 'pip') return; // measured in the pop-out
  for (const el of doc.querySelectorAll(CLIPPED)) {
    const cut = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
    if (cut === el.hasAttribute('data-clipped')) continue;
    if (cut) {
      el.setAttribute('data-clipped', '');
      if (!el.closest('button')) el.tabIndex = 0;
    } else {
      el.removeAttribute('data-clipped');
      el.removeAttribute('tabindex');
    }
  }
}

function initTips(doc) {
  const show = (el) => {
    let tip = doc.getElementById('tip');
    if (!tip) {
      tip = doc.createElement('div');
      tip.id = 'tip';
      tip.className = 'tip';
      tip.setAttribute('aria-hidden', 'true'); // the whole text is in the page already
      doc.body.append(tip);
    }
    tip.textContent = el.textContent.replace(/\s+/g, ' ').trim();
    tip.hidden = false;
    const r = el.getBoundingClientRect();
    const vw = doc.documentElement.clientWidth;
    const tw = Math.min(tip.offsetWidth, vw - 16);
    tip.style.left = `${Math.max(8, Math.min(r.left, vw - tw - 8))}px`;
    tip.style.top = `${r.bottom + 6}px`;
  };
  const hide = () => {
    const tip = doc.getElementById('tip');
    if (tip) tip.hidden = true;
  };
  const at = (e) => (isEl(e.target) ? e.target.closest('[data-clipped]') : null);
  doc.addEventListener('pointerover', (e) => {
    const el = at(e);
    if (el) show(el);
    else hide();
  });
  doc.addEventListener('focusin', (e) => {
    const el = at(e);
    if (el) show(el);
    else hide();
  });
  doc.addEventListener('focusout', hide);
  doc.addEventListener('scroll', hide, { capture: true, passive: true });
  doc.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') hide();
  });
}

// ---------- focus after a control goes away ----------
//
// A ✕ takes its row away and a Reset disables itself: focus would drop to
// <body>. It goes instead to the next sensible control: after a ✕ the next
// row's action (else the one before, else the list, else the tab); after a
// Reset the control of that setting; after Reset all the first control.

let pending = null;

function expectRowGone(btn) {
  const r = btn.closest('.row');
  if (!r) return;
  const rows = [...document.querySelectorAll('#board .row')];
  pending = { kind: 'row', id: r.dataset.sessionId, index: rows.indexOf(r), at: performance.now() };
}

function expectReset(btn) {
  pending = {
    kind: 'reset',
    key: btn.id === 'reset-all' ? '' : btn.closest('.setting')?.dataset.key ?? '',
    btn,
    at: performance.now(),
  };
}

// focusIn focuses el, or its copy when the board is popped out.
function focusIn(el) {
  if (!el) return;
  const target = pop.kind === 'pip' ? pop.mirrorOf.get(el) : el;
  target?.focus();
}

function focusLost() {
  const doc = pop.kind === 'pip' ? pop.win.document : document;
  const a = doc.activeElement;
  return !a || a === doc.body || (pending?.btn && a === pending.btn && pending.btn.disabled);
}

function settleFocus() {
  if (!pending) return;
  if (performance.now() - pending.at > FOCUS_WAIT_MS) {
    pending = null;
    return;
  }
  if (pending.kind === 'lane') {
    const items = laneItems();
    if (items.some((li) => li.dataset.sessionId === pending.id)) return; // not answered yet
    const index = pending.index;
    pending = null;
    if (!focusLost()) return;
    // Answering one brings the next: the entry now in its place (else the
    // one before), its card open and its first answer focused.
    const next = items[index] ?? items[index - 1];
    if (next) openLaneCard(next);
    else focusIn(document.querySelector('#board .rows-scroll') ?? $('tab'));
    return;
  }
  if (pending.kind === 'row') {
    const rows = [...document.querySelectorAll('#board .row')];
    if (rows.some((r) => r.dataset.sessionId === pending.id)) return; // not gone yet
    const index = pending.index;
    pending = null;
    if (!focusLost()) return;
    // the row's own actions (✕, Open, >_), not the ▸ every row has
    const act = (r) => r.querySelector('.act:not(.hist-toggle)');
    const next =
      rows.slice(index).find(act) ?? rows.slice(0, index).reverse().find(act) ?? null;
    focusIn(next ? act(next) : document.querySelector('#board .rows-scroll') ?? $('tab'));
    return;
  }
  if (pending.kind === 'reset') {
    if (!pending.btn.disabled && pending.btn.isConnected) return; // not applied yet
    const key = pending.key;
    if (!focusLost()) {
      pending = null;
      return;
    }
    pending = null;
    const set = key ? $(`set-${key}`) : document.querySelector('.setting');
    const ctl = set?.querySelector('input:checked, input:not([type="radio"])');
    ctl?.focus();
  }
}

// ---------- refusals ----------

let toastTimer = 0;
function toast(text, kind = 'error') {
  const t = $('toast');
  if (!t) return;
  t.textContent = text;
  t.dataset.kind = kind;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    t.hidden = true;
  }, 6000);
}

// say tells the human something that is not an error: in the live region,
// and on the board as a brief note.
function say(text) {
  announce(text);
  if (page === 'board') toast(text, 'info');
}

// A Datastar request answered >= 400 fires 'error' with the status only.
// The pane never sends a value it knows the host refuses (see initPane), so
// a refusal here is the host disagreeing: say so, with its status.
function refused(el, raw) {
  if (!(el instanceof Element) || el === document.body) return;
  const status = Number(raw) || 0; // Datastar may hand it over as text
  const code = status ? ` (HTTP ${status})` : '';
  const setting = el.closest('.setting');
  if (setting) {
    const r = setting.querySelector('.refusal');
    const msg = `The host refused this value${code}.`;
    if (r) r.textContent = msg;
    announce(msg);
    return;
  }
  if (el.closest('.card')) {
    // An approval card: 409 means the agent was answered elsewhere first
    // (or stopped waiting on the board), 403 that the card's answer was
    // spent or is not this host's. Never a silent success.
    const msg =
      status === 409
        ? 'Already answered in the terminal.'
        : status === 403
          ? `This approval can no longer be answered from here${code}.`
          : `notch-web refused the answer${code}.`;
    toast(msg);
    announce(msg);
    return;
  }
  if (el.closest('.row')) {
    const closing = el.classList.contains('close');
    const what = closing ? 'close out the session' : 'open the session';
    // notch-web answers 502 when the harness's door behind it failed; any
    // other refusal is notch-web's own.
    let who;
    if (status === 502) {
      who = closing ? 'the harness’s close-out route did not answer' : 'the harness’s open door did not answer';
    } else if (status >= 400) {
      who = status === 404 && closing ? 'notch-web has no such session on the board' : 'notch-web refused it';
    } else {
      who = 'notch-web could not be reached';
    }
    const msg = `Could not ${what}: ${who}${code}.`;
    toast(msg);
    announce(msg);
    if (closing) pending = null; // the row stays, and so does focus
  }
}

// ---------- push to this device ----------

// The pane's "Push to this device" is this browser's push subscription,
// made through the board's service worker (sw.js, scope /agents-notch/)
// with the host's VAPID key and handed to the host, which pushes to it
// (docs/pushes.md#web-push). What the browser can do decides the state:
// needs https, not supported, blocked (the permission was denied), on, off.
// A subscription made with another key (the host made a new one) is of no
// use and is dropped; one the host may have lost is handed to it again.
const PUSH_SW = '/agents-notch/sw.js';
const PUSH_SCOPE = '/agents-notch/';
const pushUI = { state: 'checking', text: 'Checking what this browser can do…', busy: false };

function showPush(state, text) {
  Object.assign(pushUI, { state, text });
  applyPush();
}

function applyPush() {
  const wrap = $('push-pref');
  const box = $('pref-push');
  const out = $('push-state');
  if (!wrap || !box || !out) return;
  wrap.dataset.state = pushUI.state;
  box.checked = pushUI.state === 'on';
  box.disabled = pushUI.busy || !['on', 'off', 'error'].includes(pushUI.state);
  if (out.textContent !== pushUI.text) out.textContent = pushUI.text;
}

function keyBytes(b64url) {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function sameKey(sub, key) {
  const k = sub?.options?.applicationServerKey;
  if (!k) return false;
  const a = new Uint8Array(k);
  const b = keyBytes(key);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// pushFetch calls a push route; a refusal throws the host's words.
async function pushFetch(route, body) {
  const init = { credentials: 'same-origin' };
  if (body !== undefined) {
    Object.assign(init, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  }
  let r;
  try {
    r = await fetch(`/agents-notch/push/${route}`, init);
  } catch {
    throw Object.assign(new Error('notch-web could not be reached.'), { state: 'error' });
  }
  const j = await r.json().catch(() => ({}));
  if (!r.ok) {
    const why = typeof j.error === 'string' && j.error ? j.error : `notch-web answered ${r.status}`;
    throw Object.assign(new Error(why), { state: r.status === 404 ? 'unavailable' : 'error' });
  }
  return j;
}

function pushBlocked() {
  showPush('blocked', 'Blocked by the browser: allow notifications for this site in its settings, then reload this page.');
}

async function refreshPush() {
  if (!$('pref-push')) return;
  if (!window.isSecureContext) {
    showPush('insecure', 'Needs a secure address: open the board over https (or as localhost on this machine).');
    return;
  }
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    showPush('unsupported', 'Not supported in this browser. On an iPhone or iPad: add the board to the home screen, open it from there.');
    return;
  }
  if (Notification.permission === 'denied') {
    pushBlocked();
    return;
  }
  try {
    const { key } = await pushFetch('key');
    const reg = await navigator.serviceWorker.getRegistration(PUSH_SCOPE);
    const sub = await reg?.pushManager.getSubscription();
    if (sub && !sameKey(sub, key)) await sub.unsubscribe();
    else if (sub && Notification.permission === 'granted') {
      await pushFetch('subscribe', sub.toJSON());
      showPush('on', 'On: this device gets the pushes.');
      return;
    }
    showPush('off', 'Off: this device gets no pushes.');
  } catch (e) {
    showPush(e.state ?? 'error', `${e.message}`);
  }
}

async function pushOn() {
  const perm = await Notification.requestPermission();
  if (perm === 'denied') return pushBlocked();
  if (perm !== 'granted') return showPush('off', 'Off: notifications were not allowed.');
  const { key } = await pushFetch('key');
  await navigator.serviceWorker.register(PUSH_SW, { scope: PUSH_SCOPE });
  const reg = await navigator.serviceWorker.ready;
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub, key)) {
    await sub.unsubscribe();
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await pushFetch('subscribe', sub.toJSON());
  showPush('on', 'On: this device gets the pushes.');
}

async function pushOff() {
  const reg = await navigator.serviceWorker.getRegistration(PUSH_SCOPE);
  const sub = await reg?.pushManager.getSubscription();
  if (sub) {
    // The host first (it stops sending), then the browser, even when the
    // host could not be told: its push service then answers 410.
    await pushFetch('unsubscribe', { endpoint: sub.endpoint }).catch(() => {});
    await sub.unsubscribe();
  }
  showPush('off', 'Off: this device gets no pushes.');
}

function initPush() {
  document.addEventListener('change', async (e) => {
    if (e.target?.id !== 'pref-push' || pushUI.busy) return;
    const on = e.target.checked;
    pushUI.busy = true;
    showPush(pushUI.state, on ? 'Turning on…' : 'Turning off…');
    try {
      await (on ? pushOn() : pushOff());
    } catch (err) {
      // The push service refused (headless, offline, a browser without
      // one), or the host did: say so, beside what is true now.
      const why = `Could not turn it ${on ? 'on' : 'off'}: ${err?.message || 'the browser refused'}`;
      await refreshPush();
      if (pushUI.state === 'on' || pushUI.state === 'off') showPush(pushUI.state === 'on' ? 'on' : 'error', why);
    } finally {
      pushUI.busy = false;
      applyPush();
      $('pref-push')?.focus();
    }
  });
  refreshPush();
}

// ---------- the pane ----------

function fmtUnit(input, v) {
  const u = input.dataset.unit ?? '';
  if (!u) return v;
  return u === '×' ? `${v}×` : `${v} ${u}`;
}

// applyPrefs shows this browser's own preferences in the pane.
function applyPrefs() {
  const box = $('pref-sounds');
  if (box && box.checked !== soundsOn()) box.checked = soundsOn();
}

function initPane() {
  initPush();
  // Send a test (the Pushes group): each channel's answer, as text.
  document.addEventListener('click', async (e) => {
    if (e.target?.id !== 'push-test') return;
    const out = $('push-test-result');
    const btn = e.target;
    btn.disabled = true;
    if (out) out.textContent = 'Sending…';
    let text;
    try {
      const res = await fetch('/agents-notch/notify/test', {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}',
      });
      const r = await res.json();
      text = res.ok
        ? (r.channels ?? []).map((c) => `${c.channel}: ${c.ok ? 'sent' : 'not sent — ' + c.error}`).join('\n') || 'No channel to test.'
        : `Not sent: ${r.error ?? res.status}`;
    } catch {
      text = 'Not sent: the host did not answer.';
    }
    btn.disabled = false;
    if (out) out.textContent = text;
  });
  document.addEventListener('change', (e) => {
    if (e.target?.id !== 'pref-sounds') return;
    try {
      if (e.target.checked) localStorage.removeItem(SOUND_KEY);
      else localStorage.setItem(SOUND_KEY, 'off');
    } catch {
      // storage off: nothing to keep it in
    }
    applyPrefs();
  });
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
  document.addEventListener('click', (e) => {
    const b = e.target instanceof Element ? e.target.closest('button.reset, #reset-all') : null;
    if (b && !b.disabled) expectReset(b);
  });
  initEmbed();
}

// initEmbed: framed by the harness app, the pane tells it its height (for
// sizing the frame) — to the configured harness origins only, never '*':
// postMessage drops a message whose origin the parent does not have.
// Message: {type: 'agents-notch:height', height: <CSS px>}.
function initEmbed() {
  if (window.parent === window) return;
  root.setAttribute('data-framed', '');
  const origins = (root.dataset.harnessOrigins ?? '').split(' ').filter(Boolean);
  const main = document.querySelector('main');
  if (!origins.length || !main) return;
  let last = -1;
  const post = () => {
    const height = Math.ceil(main.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    for (const o of origins) window.parent.postMessage({ type: 'agents-notch:height', height }, o);
  };
  new ResizeObserver(post).observe(main);
  post();
}

// Links between the board and the pane open beside a framed pane or a
// pop-out, rather than in the frame or the small window.
function applyLinks() {
  const away = root.hasAttribute('data-framed') || popoutPage;
  for (const a of document.querySelectorAll('#to-board, .tool-link')) {
    if (away) {
      a.target = '_blank';
      a.rel = 'noopener';
    }
  }
}

// ---------- the desktop window's state, in words ----------

// The server says the clock-free lead ("crashed; restarting") and the
// moments; the words are finished here, on the viewer's clock and in the
// viewer's time zone: "running since 10:42", "crashed; restarting in
// 12 s", "quit from the tray; back at 11:42".
function hhmm(ms) {
  return new Date(ms - skew).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
}

function tickWindow() {
  const st = $('window-state');
  const words = $('window-words');
  if (!st || !words) return;
  const d = st.dataset;
  const lead = d.lead ?? '';
  const since = Number(d.sinceMs);
  const next = Number(d.nextMs);
  let text = lead;
  if (d.state === 'running' && since > 0) text = `${lead} ${hhmm(since)}`;
  else if (d.state === 'quit' && next > 0) text = `${lead} ${hhmm(next)}`;
  else if (d.state === 'waiting' && next > 0) {
    const left = next - now();
    if (left > 120000) text = `${lead} at ${hhmm(next)}`;
    else if (left <= 0) text = `${lead} now`;
    else text = `${lead} in ${Math.ceil(left / 1000)} s`;
  }
  if (words.textContent !== text) words.textContent = text;
}

// ---------- after every patch, and on a tick ----------

function afterPatch() {
  if (page === 'board') {
    applyUI();
    applyGroups();
    applyLane();
    planTimes();
    whyTimes();
    tickTimes();
    tickFaces();
    applyTitle();
    applyFlash();
    markClipped(document);
    watchAlert();
    watchUnseen();
    applyHistory();
  }
  if (page === 'pane') {
    tickWindow();
    tickTimes(); // the Machines group's "last seen"
    applyPrefs();
    applyPush();
  }
  applyLinks();
  sayStatus();
  // With the board popped out, focus lives in the copy, which is brought up
  // to date after this (syncMirror settles it then).
  if (pop.kind !== 'pip') settleFocus();
}

function tick() {
  if (performance.now() - lastEvent > STALE_MS) setLive(false);
  if (page === 'board') {
    lookAtRows();
    tickTimes();
    planTimes();
    whyTimes();
    tickFaces();
    applyFlash();
    if (pop.kind === 'window' && pop.win?.closed) poppedIn();
  }
  if (page === 'pane') {
    tickWindow();
    tickTimes();
  }
}

// Pushes (host/push): the host sends none while a board is being looked
// at, so a board page says when it is (visible and focused), again every
// data-looking-ms while it is (a lease: a tab that died stops counting),
// and when it stops. The id is this page's own, random, never stored.
function reportLooking() {
  const every = Number(root.dataset.lookingMs);
  if (!(every > 0)) return;
  const tab = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
  let said = null;
  let renew = null;
  const say = (on) => {
    said = on;
    fetch('/agents-notch/looking', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tab, looking: on }), keepalive: true,
    }).catch(() => {});
  };
  const check = () => {
    const on = looking();
    if (on !== said) say(on);
    clearInterval(renew);
    renew = on ? setInterval(() => say(true), every) : null;
  };
  document.addEventListener('visibilitychange', check);
  window.addEventListener('focus', check);
  window.addEventListener('blur', check);
  window.addEventListener('pagehide', () => { clearInterval(renew); say(false); });
  check();
}

if (popoutPage) pop.folded = { w: window.innerWidth, h: window.innerHeight };
if (page === 'board') initBoard();
if (page === 'board') reportLooking();
if (page === 'pane') initPane();
afterPatch();

setInterval(tick, 250);
