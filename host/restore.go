package host

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// RestoreMaxAge is how old this host's last state.json may be and still be
// restored: a board from yesterday is history, not sessions still running.
const RestoreMaxAge = 24 * time.Hour

// restore refills the board from this host's own last state.json (the file
// it is about to write), so a restart — even a kill -9 — loses no session:
// rows, colours and counters carry on, and the agents' next hooks or events
// apply to them; then, as the host runs, each is reconciled with its agent
// (restoreLive). A file that is missing, unreadable, of another plugin, or
// older than RestoreMaxAge restores nothing; only the unreadable is worth a
// warning.
func (h *Host) restore(now time.Time) {
	doc, err := state.ReadFile(h.cfg.StatePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		h.log.Warn("last state.json not restored", "log_type", logx.TypeState, logx.Err("RestoreError", err))
		return
	case doc.Plugin != state.Plugin:
		h.log.Warn("last state.json not restored", "log_type", logx.TypeState,
			logx.Err("RestoreError", fmt.Errorf("%s was written by %q, not %q", h.cfg.StatePath, doc.Plugin, state.Plugin)))
		return
	}
	age := now.Sub(time.UnixMilli(doc.WallMs))
	if age > RestoreMaxAge {
		h.log.Info("last state.json too old to restore", "log_type", logx.TypeState,
			"data", map[string]any{"ageHours": int(age.Hours()), "path": h.cfg.StatePath})
		return
	}
	// Other machines' rows come back from their own store (host/mesh); the
	// demo's rows come back only as the demo plays them again (a second
	// "make run" showed the last run's demo rows beside the new ones).
	doc.Sessions = slices.DeleteFunc(doc.Sessions, func(s state.Session) bool {
		return h.board.ownsRemote(s.ID) || (h.cfg.Demo && state.IsDemoID(s.ID))
	})
	if n := h.board.restore(doc); n > 0 {
		h.log.Info("sessions restored from the last state.json", "log_type", logx.TypeState,
			"data", map[string]any{"count": n, "ageMs": age.Milliseconds(), "path": h.cfg.StatePath})
		// Each restored row meets its agent again (live.go) as the host
		// runs: by then the board has its recorder, which keeps what
		// that changes.
		h.restored = true
	}
}
