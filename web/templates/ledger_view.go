package templates

import (
	"math"
	"slices"
	"strconv"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/ledger"
)

// PageLedger is the ledger page's stream.
const PageLedger = "ledger"

// LedgerView is the ledger as the board's strip and the ledger page draw
// it: each plan window with its age, and the cost and tokens added up.
// Built by NewLedgerView; the same view renders to the same bytes (ages
// tick in the page, from the as-of instants).
type LedgerView struct {
	Figures []LedgerFigure
	// Machines: figures came from more than one machine, so each names
	// its own.
	Machines bool
	// Agents are every agent notch-web knows, with what it tells of its
	// limits (the page's "where each figure comes from").
	Agents []LedgerAgent
	// ByAgent, ByMachine, ByProject, ByDay and BySession are the cost and
	// tokens added up (the page).
	ByAgent, ByMachine, ByProject, ByDay, BySession []LedgerSum
}

// LedgerFigure is one plan window.
type LedgerFigure struct {
	Agent, Display, Mark string
	Window               string // "5-hour"
	Account, Machine     string // "" when unknown / this machine
	// State is ledger.Fresh, Stale or Reset: a reset window shows no
	// percentage (its old one no longer holds).
	State     string
	Pct       int64
	Fill      string // the bar's share, 0 … 1
	Hot       bool   // 80 % or more
	ResetsISO string // "" when not told
	AsOfISO   string
}

// LedgerAgent is an agent and where it tells its limits ("" Source: it
// does not tell them).
type LedgerAgent struct {
	Display, Mark, Source string
}

// LedgerSum is cost and tokens under one key.
type LedgerSum struct {
	Key           string
	Input, Output int64
	Cache         int64 // read from and written to the cache
	Tokens        int64
	Cost          string // "" when no source told a cost
	HasTokens     bool   // false: no source told a token count
}

// NewLedgerView draws s; project names a session's project ("" unknown),
// machine names this machine.
func NewLedgerView(s ledger.Snapshot, project func(session string) string, machine string) LedgerView {
	var v LedgerView
	machines := map[string]bool{}
	for _, f := range s.Figures {
		lf := LedgerFigure{Agent: f.Agent, Display: f.Agent, Mark: "", Window: f.Label(), Account: f.Account, Machine: f.Machine,
			State: string(f.State), AsOfISO: isoMs(f.AsOf.UnixMilli())}
		if sp, ok := registry.Get(f.Agent); ok {
			lf.Display, lf.Mark = sp.Display, sp.Mark
		}
		if lf.Mark == "" {
			lf.Mark = "··"
		}
		if f.State != ledger.Reset {
			lf.Pct = int64(math.Round(f.UsedPct))
			lf.Fill = strconv.FormatFloat(f.UsedPct/100, 'f', 3, 64)
			lf.Hot = lf.Pct >= 80
		}
		if !f.ResetsAt.IsZero() {
			lf.ResetsISO = isoMs(f.ResetsAt.UnixMilli())
		}
		machines[f.Machine] = true
		v.Figures = append(v.Figures, lf)
	}
	v.Machines = len(machines) > 1
	for i := range v.Figures {
		if v.Figures[i].Machine == "" {
			v.Figures[i].Machine = machine
		}
	}
	for _, name := range registry.Names() {
		sp, _ := registry.Get(name)
		v.Agents = append(v.Agents, LedgerAgent{Display: sp.Display, Mark: sp.Mark, Source: sp.Limits.Source})
	}
	display := func(name string) string {
		if sp, ok := registry.Get(name); ok {
			return sp.Display
		}
		return name
	}
	sums := func(by func(ledger.Line) string) []LedgerSum {
		var out []LedgerSum
		for _, g := range ledger.Sum(s.Lines, by) {
			ls := LedgerSum{Key: g.Key, Input: g.InputTokens, Output: g.OutputTokens, Cache: g.CacheReadTokens + g.CacheWriteTokens, Tokens: g.Tokens(), HasTokens: g.HasTokens}
			if g.HasCost {
				ls.Cost = "$" + strconv.FormatFloat(g.CostUSD, 'f', 2, 64)
			}
			out = append(out, ls)
		}
		return out
	}
	v.ByAgent = sums(func(l ledger.Line) string { return display(l.Agent) })
	v.ByMachine = sums(func(l ledger.Line) string {
		if l.Machine == "" {
			return machine
		}
		return l.Machine
	})
	v.ByProject = sums(func(l ledger.Line) string {
		if p := project(l.Session); p != "" {
			return p
		}
		return "(unknown)"
	})
	v.ByDay = sums(func(l ledger.Line) string { return l.Day })
	slices.Reverse(v.ByDay) // the latest day first
	v.BySession = sums(func(l ledger.Line) string { return display(l.Agent) + " · " + l.Session })
	return v
}

// groupedTokens is n with its thousands grouped ("12,345").
func groupedTokens(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// ledgerTitle is a window's tooltip: the absolute as-of and reset.
func ledgerTitle(f LedgerFigure) string {
	t := f.Display + " " + f.Window + " window"
	if f.Account != "" {
		t += " (" + f.Account + ")"
	}
	switch f.State {
	case "reset":
		t += ": past its reset, so its last figure no longer holds"
	case "stale":
		t += ": no fresh reading"
	}
	t += " · as of " + f.AsOfISO
	if f.Machine != "" {
		t += " · reported by " + f.Machine
	}
	return clean(t, 300)
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}
