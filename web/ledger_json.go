package web

import (
	"time"

	"github.com/notch-web/notch-web/host/ledger"
)

// ledgerReply is GET /agents-notch/ledger as JSON: the plan windows as the
// ledger shows them now (a window past its reset has no usedPct: its old
// figure no longer holds) and the cost and tokens per session and day.
type ledgerReply struct {
	OK      bool           `json:"ok"`
	Windows []ledgerWindow `json:"windows"`
	Lines   []ledgerLine   `json:"lines"`
}

type ledgerWindow struct {
	Agent    string   `json:"agent"`
	Account  string   `json:"account,omitempty"`
	Window   string   `json:"window"`
	Label    string   `json:"label"`
	Minutes  int      `json:"minutes,omitempty"`
	UsedPct  *float64 `json:"usedPct"`
	State    string   `json:"state"`
	ResetsAt string   `json:"resetsAt,omitempty"` // RFC 3339
	AsOf     string   `json:"asOf"`
	AgeMs    int64    `json:"ageMs"`
	Machine  string   `json:"machine,omitempty"`
}

type ledgerLine struct {
	Day              string   `json:"day"`
	Agent            string   `json:"agent"`
	Machine          string   `json:"machine,omitempty"`
	Session          string   `json:"session"`
	InputTokens      int64    `json:"inputTokens"`
	OutputTokens     int64    `json:"outputTokens"`
	CacheReadTokens  int64    `json:"cacheReadTokens"`
	CacheWriteTokens int64    `json:"cacheWriteTokens"`
	CostUSD          *float64 `json:"costUsd"`
}

func newLedgerReply(s ledger.Snapshot) ledgerReply {
	out := ledgerReply{OK: true, Windows: []ledgerWindow{}, Lines: []ledgerLine{}}
	for _, f := range s.Figures {
		w := ledgerWindow{Agent: f.Agent, Account: f.Account, Window: f.Window, Label: f.Label(), Minutes: f.Minutes, State: string(f.State),
			AsOf: f.AsOf.UTC().Format(time.RFC3339Nano), AgeMs: f.Age.Milliseconds(), Machine: f.Machine}
		if f.State != ledger.Reset {
			p := f.UsedPct
			w.UsedPct = &p
		}
		if !f.ResetsAt.IsZero() {
			w.ResetsAt = f.ResetsAt.UTC().Format(time.RFC3339)
		}
		out.Windows = append(out.Windows, w)
	}
	for _, l := range s.Lines {
		ll := ledgerLine{Day: l.Day, Agent: l.Agent, Machine: l.Machine, Session: l.Session, InputTokens: l.InputTokens, OutputTokens: l.OutputTokens,
			CacheReadTokens: l.CacheReadTokens, CacheWriteTokens: l.CacheWriteTokens}
		if l.HasCost {
			c := l.CostUSD
			ll.CostUSD = &c
		}
		out.Lines = append(out.Lines, ll)
	}
	return out
}
