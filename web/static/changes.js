// notch-web: a row's Changes page. A new line's number (a button) picks
// the line to quote;
// Send types the comment into the session through the board's Reply
// (POST /agents-notch/reply, with all its checks), quoting the file and
// the line. The text is the same a person would type: a newline is the
// only control character it may hold (a tab in the quoted line becomes
// spaces).

const page = document.getElementById('changes');
const form = document.getElementById('chg-comment');
const where = document.getElementById('chg-where');
const text = document.getElementById('chg-text');
const status = document.getElementById('chg-status');
const clear = document.getElementById('chg-clear');
const picked = { path: '', line: 0, text: '' };
const intro = where?.textContent ?? '';

// MAX_REPLY is the Reply's own limit (terminal.MaxReply), in bytes.
const MAX_REPLY = 8192;

function pick(btn) {
  const file = btn.closest('.diff');
  const row = btn.parentElement;
  picked.path = file?.dataset.path ?? '';
  picked.line = Number(btn.textContent);
  picked.text = (row?.querySelector('code')?.textContent ?? '').replaceAll('\t', '    ');
  for (const b of document.querySelectorAll('.diff-body .p[aria-pressed="true"]')) b.setAttribute('aria-pressed', 'false');
  btn.setAttribute('aria-pressed', 'true');
  where.textContent = `About ${picked.path}, line ${picked.line}: ${picked.text.trim()}`;
  clear.hidden = false;
  text.focus();
}

function unpick() {
  picked.path = '';
  picked.line = 0;
  picked.text = '';
  for (const b of document.querySelectorAll('.diff-body .p[aria-pressed="true"]')) b.setAttribute('aria-pressed', 'false');
  where.textContent = intro;
  clear.hidden = true;
}

// replyText is what is typed: the file and line quoted, then the comment.
function replyText(comment) {
  if (!picked.path) return comment;
  return `About ${picked.path}, line ${picked.line}:\n> ${picked.text}\n${comment}`;
}

async function send(ev) {
  ev.preventDefault();
  const comment = text.value.trim();
  if (!comment) {
    status.textContent = 'Write a comment first.';
    return;
  }
  let body = replyText(comment);
  while (new TextEncoder().encode(body).length > MAX_REPLY) body = body.slice(0, -1);
  status.textContent = 'Sending…';
  try {
    const res = await fetch('/agents-notch/reply', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: page.dataset.session, text: body }),
    });
    const out = await res.json().catch(() => ({}));
    if (res.ok) {
      status.textContent = 'Sent to the session.';
      text.value = '';
      unpick();
    } else {
      status.textContent = `Not sent: ${out.error ?? res.status}`;
    }
  } catch {
    status.textContent = 'Not sent: the host did not answer.';
  }
}

if (page && form) {
  page.addEventListener('click', (ev) => {
    const btn = ev.target instanceof Element ? ev.target.closest('.diff-body .p') : null;
    if (btn) pick(btn);
  });
  clear.addEventListener('click', unpick);
  form.addEventListener('submit', send);
}
