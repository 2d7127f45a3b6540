package host

import (
	"time"

	"github.com/notch-web/notch-web/state"
)

// NextChange is the earliest instant at which the board's View may differ
// from doc, the View it returned (unknown as it said), by the clock alone —
// with no change of the board (Version) or of the settings. It is the zero
// time when nothing in doc changes with time. The two changes by time:
//   - a followed host's heartbeat going stale (docs/contract.md rule 3):
//     its wallMs + StaleAfter; once stale, only a new document changes it;
//   - a settled row of this host's fold leaving under retire "timer"
//     (rule 2): since + RetireAfter. Rows of other machines retire on
//     their own host, whose new board is a change here; a row left out
//     (past MaxSessions, or done under showDone off) matters only when a
//     row in doc leaves, which is in doc's time.
//
// Nothing else the board carries is derived from the clock: a machine
// going quiet is its presence key expiring (host/mesh), a change of the
// board; relative times and the pleased face tick in the page.
func (b *Board) NextChange(doc state.Document, unknown bool) time.Time {
	if b.follow {
		if unknown {
			return time.Time{}
		}
		return state.StaleAt(doc)
	}
	var next time.Time
	for _, s := range doc.Sessions {
		at, ok := state.RetiresAt(s, doc.Retire, b.cfg.RetireAfter)
		if !ok || (!next.IsZero() && !at.Before(next)) || b.ownsRemote(s.ID) {
			continue
		}
		next = at
	}
	return next
}
