package push

import (
	"fmt"
	"math"
	"time"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/ledger"
)

// limitMessage is the push for a ledger's event: "Codex: 5-hour window at
// 82 %" with its reset, or "Claude Code can run again". One tag per
// window: a later push about it replaces the earlier.
func limitMessage(ev ledger.Event, boardURL string, now time.Time) Message {
	f := ev.Figure
	name := f.Agent
	if s, ok := registry.Get(f.Agent); ok {
		name = s.Display
	}
	if f.Account != "" {
		name += " (" + f.Account + ")"
	}
	m := Message{Tag: "limits:" + f.Agent + ":" + f.Account + ":" + f.Machine + ":" + f.Window, Kind: KindLimits, URL: boardURL, At: now}
	switch {
	case ev.Kind == ledger.Ended && f.Window == ledger.StoppedWindow:
		m.Title = name + " can run again"
		m.Body = "the usage limit it stopped on has reset"
	case ev.Kind == ledger.Ended:
		m.Title = name + " can run again"
		m.Body = "its " + f.Label() + " usage limit has reset"
	default:
		m.Title = fmt.Sprintf("%s: %s window at %d%%", name, f.Label(), int(math.Floor(f.UsedPct)))
		m.Body = fmt.Sprintf("past your %d%% level", int(ev.Level))
		if !f.ResetsAt.IsZero() {
			m.Body += "; it resets at " + f.ResetsAt.Local().Format("Mon 15:04")
		}
	}
	m.Title, m.Body = cutLine(m.Title, maxTitle), cutLine(m.Body, maxBody)
	return m
}
