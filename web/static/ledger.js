// The ledger page's clock (templates.LedgerPage): each window's reset and
// the age of each figure, in this viewer's own clock, written after every
// patch of the page's stream and every few seconds. The server sends the
// instants (<time datetime>), never a text that would go stale.

function rel(ms) {
  const s = Math.max(0, Math.floor((Date.now() - ms) / 1000));
  if (s < 5) return 'now';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

function ledgerTimes() {
  for (const t of document.querySelectorAll('time.plan-reset')) {
    const at = Date.parse(t.getAttribute('datetime') ?? '');
    if (!Number.isFinite(at)) continue;
    const d = new Date(at);
    const hm = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const soon = at - Date.now() < 20 * 3600 * 1000;
    const text = soon ? hm : `${d.toLocaleDateString([], { weekday: 'short' })} ${hm}`;
    if (t.textContent !== text) t.textContent = text;
    if (t.title !== d.toLocaleString()) t.title = d.toLocaleString();
  }
  for (const t of document.querySelectorAll('time.plan-asof')) {
    const at = Date.parse(t.getAttribute('datetime') ?? '');
    if (!Number.isFinite(at)) continue;
    const r = rel(at);
    const text = r === 'now' ? 'now' : `${r} ago`;
    if (t.textContent !== text) t.textContent = text;
    const title = new Date(at).toLocaleString();
    if (t.title !== title) t.title = title;
  }
}

ledgerTimes();
setInterval(ledgerTimes, 5000);
new MutationObserver(ledgerTimes).observe(document.body, { childList: true, subtree: true });
