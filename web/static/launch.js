// launch.js: the board's New session sheet and the History page's Resume
// (docs/launch.md). The page carries it only for a viewer whose role may
// start sessions; the machine's own launch file says what may start, and
// the host refuses the rest whatever this script sends.

const sheet = document.getElementById('launch-sheet');
const $ = (id) => document.getElementById(id);

// post sends a start and returns [ok, the host's words].
async function post(body) {
  let res;
  try {
    res = await fetch('/agents-notch/launch', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
  } catch {
    return [false, 'notch-web could not be reached.'];
  }
  let reply = {};
  try { reply = await res.json(); } catch { /* not JSON: the status says it */ }
  if (res.ok) return [true, reply];
  return [false, reply.error || `The start was refused (HTTP ${res.status}).`];
}

function option(sel, value, label) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  sel.append(o);
}

let options = null;

// load fills the sheet from what machine's launch file allows.
async function load(machine) {
  const status = $('launch-status');
  status.textContent = 'Asking the machine…';
  $('launch-start').disabled = true;
  let o;
  try {
    const res = await fetch('/agents-notch/launch/options?machine=' + encodeURIComponent(machine));
    o = await res.json();
    if (!res.ok) throw new Error(o.error || `HTTP ${res.status}`);
  } catch (e) {
    status.textContent = 'Could not ask the machine: ' + e.message;
    return;
  }
  options = o;
  const ms = $('launch-machine');
  if (!ms.options.length) {
    for (const m of o.machines) option(ms, m, m === '' ? 'This machine' : m);
  }
  const agents = $('launch-agent');
  agents.replaceChildren();
  for (const a of o.agents) option(agents, a, a);
  const folders = $('launch-folders');
  folders.replaceChildren();
  for (const r of o.roots) option(folders, r, r);
  if (!$('launch-folder').value && o.roots.length) $('launch-folder').value = o.roots[0];
  $('launch-wt').hidden = !o.worktrees;
  const offered = $('launch-offered');
  offered.hidden = !o.offered.length;
  offered.textContent = o.offered.length
    ? 'Seen here, not allowed: ' + o.offered.join(', ') + ' — on that machine, notch-web launch allow-folder DIR adds one.'
    : '';
  if (!o.on) {
    status.textContent = o.problem
      ? 'Launching is off there: ' + o.problem
      : 'Launching is off on that machine: on it, notch-web launch allow-folder DIR and allow-agent NAME turn it on.';
    return;
  }
  status.textContent = '';
  $('launch-start').disabled = false;
}

function open() {
  if (!sheet) return;
  $('launch-status').textContent = '';
  sheet.showModal();
  load($('launch-machine').value || '');
}

document.addEventListener('click', (e) => {
  const t = e.target instanceof Element ? e.target : null;
  if (t?.closest('#new-session')) open();
  if (t?.closest('#launch-cancel')) sheet.close();
  const resume = t?.closest('.resume-btn');
  if (resume) resumeSession(resume);
});

$('launch-machine')?.addEventListener('change', (e) => load(e.target.value));

$('launch-form')?.addEventListener('submit', async (e) => {
  e.preventDefault();
  const start = $('launch-start');
  const status = $('launch-status');
  start.disabled = true;
  status.textContent = 'Starting…';
  const [ok, reply] = await post({
    machine: $('launch-machine').value || '',
    folder: $('launch-folder').value.trim(),
    agent: $('launch-agent').value,
    branch: $('launch-branch').value.trim(),
    prompt: $('launch-prompt').value,
    resume: '',
  });
  start.disabled = false;
  if (!ok) {
    status.textContent = reply;
    return;
  }
  $('launch-prompt').value = '';
  $('launch-branch').value = '';
  sheet.close();
  const toast = $('toast');
  if (toast) {
    toast.textContent = `Started in ${reply.folder}: its row appears with its first hook.`;
    toast.dataset.kind = 'info';
    toast.hidden = false;
    setTimeout(() => { toast.hidden = true; }, 6000);
  }
});

// resumeSession resumes a History row's session where it ran.
async function resumeSession(btn) {
  const say = btn.nextElementSibling;
  btn.disabled = true;
  const [ok, reply] = await post({
    machine: btn.dataset.machine, folder: btn.dataset.folder, agent: btn.dataset.agent,
    branch: '', prompt: '', resume: btn.dataset.session,
  });
  btn.disabled = false;
  if (say) say.textContent = ok ? 'Resumed: its row is on the board.' : reply;
}
