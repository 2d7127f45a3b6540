package codex

import (
	"bytes"
	"encoding/json"
	"math"
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/internal/tail"
)

// Codex 0.169 writes a token_count event_msg to the rollout after every
// model response: info.total_token_usage, the thread's running totals
// (input_tokens counts the cached input too), and rate_limits, the plan's
// windows as the model API's last response headers said them
// (x-codex-{primary,secondary}-{used-percent,window-minutes,reset-at}):
//
//	{"timestamp":"…","type":"event_msg","payload":{"type":"token_count",
//	 "info":{"total_token_usage":{"input_tokens":2000,"cached_input_tokens":0,
//	   "cache_write_input_tokens":0,"output_tokens":12,…},…},
//	 "rate_limits":{"limit_id":"codex","primary":{"used_percent":42.0,
//	   "window_minutes":300,"resets_at":1796669537},"secondary":{…},…}}}
//
// rate_limits is null when the API sent no such headers (an API key's
// provider), and either window may be.

type tokenCountLine struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Payload   struct {
		Type string `json:"type"`
		Info *struct {
			Total *struct {
				Input      int64 `json:"input_tokens"`
				Cached     int64 `json:"cached_input_tokens"`
				CacheWrite int64 `json:"cache_write_input_tokens"`
				Output     int64 `json:"output_tokens"`
			} `json:"total_token_usage"`
		} `json:"info"`
		RateLimits *struct {
			Primary   *rateWindow `json:"primary"`
			Secondary *rateWindow `json:"secondary"`
		} `json:"rate_limits"`
	} `json:"payload"`
}

type rateWindow struct {
	UsedPercent   *float64 `json:"used_percent"`
	WindowMinutes *int64   `json:"window_minutes"`
	ResetsAt      *int64   `json:"resets_at"` // seconds since the epoch
}

var tokenCount = []byte(`"token_count"`)

// maxEpoch is the year 9999 in seconds: a later reset is not a time.
const maxEpoch = 253402300799

// parseTokenCount reads one rollout line; ok is false for any line that is
// not a token_count event with something in it.
func parseTokenCount(line []byte) (agent.PlanReport, bool) {
	var r agent.PlanReport
	if !bytes.Contains(line, tokenCount) {
		return r, false
	}
	var l tokenCountLine
	if json.Unmarshal(line, &l) != nil || l.Type != "event_msg" || l.Payload.Type != "token_count" || l.Timestamp.IsZero() {
		return r, false
	}
	r.AsOf = l.Timestamp
	if in := l.Payload.Info; in != nil && in.Total != nil {
		t := in.Total
		const most = 1 << 50
		if t.Input >= 0 && t.Cached >= 0 && t.CacheWrite >= 0 && t.Output >= 0 &&
			t.Input < most && t.Cached < most && t.CacheWrite < most && t.Output < most {
			r.HasTokens = true
			r.InputTokens, r.CacheReadTokens = max(t.Input-t.Cached, 0), min(t.Cached, t.Input)
			r.CacheWriteTokens, r.OutputTokens = t.CacheWrite, t.Output
		}
	}
	if rl := l.Payload.RateLimits; rl != nil {
		for _, w := range []struct {
			name string
			w    *rateWindow
		}{{"primary", rl.Primary}, {"secondary", rl.Secondary}} {
			if pw, ok := planWindow(w.name, w.w); ok {
				r.Windows = append(r.Windows, pw)
			}
		}
	}
	return r, r.HasTokens || len(r.Windows) > 0
}

func planWindow(name string, w *rateWindow) (agent.PlanWindow, bool) {
	if w == nil || w.UsedPercent == nil || math.IsNaN(*w.UsedPercent) || *w.UsedPercent < 0 || *w.UsedPercent > 1000 {
		return agent.PlanWindow{}, false
	}
	pw := agent.PlanWindow{Window: name, UsedPct: min(*w.UsedPercent, 100)}
	if m := w.WindowMinutes; m != nil && *m > 0 && *m <= 366*24*60 {
		pw.Minutes = int(*m)
	}
	if s := w.ResetsAt; s != nil && *s > 0 && *s <= maxEpoch {
		pw.ResetsAt = time.Unix(*s, 0).UTC()
	}
	return pw, true
}

// Plan reads the latest token_count of the rollout at path: the plan's
// windows as of its time and the thread's running token totals. A latest
// token_count with no rate_limits leaves the windows to an earlier one
// that had them (each line is read from the end back, within the tail's
// bounds). ok is false when the rollout has none.
func Plan(path string) (agent.PlanReport, bool) {
	var out agent.PlanReport
	found := false
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		r, ok := parseTokenCount(line)
		if !ok {
			return true
		}
		if !found {
			out, found = r, true
		} else if len(out.Windows) == 0 && len(r.Windows) > 0 {
			out.Windows = r.Windows
			out.AsOf = r.AsOf
		}
		return len(out.Windows) == 0
	})
	return out, found
}
