package state

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDemoScript plays three loops through the fold, exactly as --demo
// does (stamping each event when it is sent), and checks that each loop
// shows what the board has to show and leaves the board empty.
func TestDemoScript(t *testing.T) {
	f := NewFold()
	start := t0
	for loop := range 3 {
		script := DemoScript(loop)
		if !slices.IsSortedFunc(script, func(a, b TimedEvent) int { return int((a.After - b.After) / time.Millisecond) }) {
			t.Fatalf("loop %d: the script is not in sending order", loop)
		}
		if last := script[len(script)-1].After; last >= DemoLoop {
			t.Fatalf("loop %d: the last event is at %v, past DemoLoop", loop, last)
		}
		var (
			projects   = map[string]bool{}
			tools      = map[string]bool{}
			streaks    []int
			approvedAt bool
			rejected   bool
			subagent   bool
			hot        bool
			ended      = map[string]bool{}
		)
		for _, te := range script {
			ev := te.Event
			if ev.At != 0 {
				t.Fatalf("the script stamps its own events: %+v", ev)
			}
			if !strings.HasPrefix(ev.Session, fmt.Sprintf("demo-%d-", loop)) {
				t.Fatalf("loop %d: session id %q does not carry the loop", loop, ev.Session)
			}
			evs := []Event{ev}
			Stamp(evs, time.UnixMilli(start+te.After.Milliseconds()))
			w, err := f.Apply(evs...)
			if err != nil || w != nil {
				t.Fatalf("loop %d, %+v: %v %v", loop, ev, err, w)
			}
			switch ev.Type {
			case TypeToolStarted:
				tools[ev.Tool] = true
			case TypeApprovalResolved:
				rejected = rejected || ev.Outcome == OutcomeRejected
			case TypeTurnEnded:
				ended[ev.Outcome] = true
			}
			d := f.Snapshot(SnapshotInput{Now: time.UnixMilli(start + te.After.Milliseconds()), Settings: input(0).Settings,
				Context: Context{Budget: ptr(DemoBudget)}})
			for _, s := range d.Sessions {
				projects[s.Project] = s.Project != ""
				approvedAt = approvedAt || s.ApprovedAt != nil
				subagent = subagent || (s.Origin == OriginSubagent && s.ParentSession != "")
				hot = hot || float64(s.ContextTokens) >= d.Context.HotAt*float64(*d.Context.Budget)
				if strings.HasSuffix(s.ID, "-argon") && (len(streaks) == 0 || streaks[len(streaks)-1] != s.ErrorStreak) {
					streaks = append(streaks, s.ErrorStreak)
				}
			}
		}
		if f.Len() != 0 {
			t.Fatalf("loop %d left %d sessions open", loop, f.Len())
		}
		if len(projects) < 3 {
			t.Errorf("projects: %v", projects)
		}
		for _, tool := range []string{"bash", "edit", "grep", "web_fetch"} {
			if !tools[tool] {
				t.Errorf("no %s call", tool)
			}
		}
		if !slices.Equal(streaks, []int{0, 1, 2, 0}) {
			t.Errorf("argon's errorStreak went %v, want 0 1 2 0", streaks)
		}
		if !approvedAt || !rejected || !subagent || !hot || !ended[OutcomeCompleted] || !ended[OutcomeError] {
			t.Errorf("missing: approvedAt %v rejected %v subagent %v hot %v ended %v", approvedAt, rejected, subagent, hot, ended)
		}
		start += DemoLoop.Milliseconds()
	}
}
