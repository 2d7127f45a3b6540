package standin

import (
	"net/http"
	"strconv"
	"time"
)

// CodexLimits are the plan windows the stand-in reports on every Responses
// reply, in the headers Codex reads into its rate_limits (checked in the
// codex 0.169 binary: x-codex-{primary,secondary}-{used-percent,
// window-minutes,reset-at}, reset-at in seconds since the epoch). Codex
// writes them into the session's rollout as a token_count event; the
// host's ledger reads them from there.
type CodexLimits struct {
	PrimaryPct, SecondaryPct         float64
	PrimaryMinutes, SecondaryMinutes int
	PrimaryReset, SecondaryReset     time.Time
}

// Limits are the windows this server reports (fixed when it was made).
func (s *Server) Limits() CodexLimits { return s.limits }

func newLimits(now time.Time) CodexLimits {
	now = now.Truncate(time.Second)
	return CodexLimits{
		PrimaryPct: 42, PrimaryMinutes: 300, PrimaryReset: now.Add(3 * time.Hour),
		SecondaryPct: 17, SecondaryMinutes: 10080, SecondaryReset: now.Add(5 * 24 * time.Hour),
	}
}

func (l CodexLimits) header(h http.Header) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	h.Set("x-codex-primary-used-percent", f(l.PrimaryPct))
	h.Set("x-codex-primary-window-minutes", strconv.Itoa(l.PrimaryMinutes))
	h.Set("x-codex-primary-reset-at", strconv.FormatInt(l.PrimaryReset.Unix(), 10))
	h.Set("x-codex-secondary-used-percent", f(l.SecondaryPct))
	h.Set("x-codex-secondary-window-minutes", strconv.Itoa(l.SecondaryMinutes))
	h.Set("x-codex-secondary-reset-at", strconv.FormatInt(l.SecondaryReset.Unix(), 10))
}
