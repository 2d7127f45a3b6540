package state

import (
	"github.com/notch-web/notch-web/internal/golden"

	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the code (then review them by reading!)")

// goldenCases are whole state.json documents, one per contract rule and per
// field edge. Each golden is Encode's output, indented for review.
func goldenCases(t *testing.T) []struct {
	name   string
	events []Event
	in     func(*SnapshotInput)
} {
	noop := func(*SnapshotInput) {}
	type tc = struct {
		name   string
		events []Event
		in     func(*SnapshotInput)
	}
	var many []Event // 41 sessions: one done, one attention, 39 working
	many = append(many, opened(0, "s00"), turnEnd(1, "s00", OutcomeCompleted), opened(2, "s01"), askFor(3, "s01", "bash", "make clean"))
	for i := 2; i <= 40; i++ {
		many = append(many, openedIn(int64(10*i), fmt.Sprintf("s%02d", i), fmt.Sprintf("/src/p%d", i%3)))
	}
	demo := func(until time.Duration) []Event {
		var evs []Event
		for _, te := range DemoScript(0) {
			if te.After <= until {
				ev := te.Event
				ev.At = t0 + te.After.Milliseconds()
				evs = append(evs, ev)
			}
		}
		return evs
	}
	return []tc{
		{"empty", nil, noop},
		{"rule1_budget_null", []Event{openedIn(0, "a", "/src/notch-web"), bare(1, TypeTurnStarted, "a"), tokens(2, "a", 412_034)}, noop},
		{"rule1_budget_known", []Event{openedIn(0, "a", "/src/notch-web"), bare(1, TypeTurnStarted, "a"), tokens(2, "a", 612_000)},
			func(in *SnapshotInput) { in.Context = Context{Budget: ptr[int64](1_000_000), HotAt: 0.6} }},
		{"context_hotat_default", nil, func(in *SnapshotInput) { in.Context = Context{Budget: ptr[int64](200_000)} }},
		{"rule2_retire_route", []Event{opened(0, "old-done"), turnEnd(1, "old-done", OutcomeCompleted), opened(2, "old-error"), turnEnd(3, "old-error", OutcomeError)},
			func(in *SnapshotInput) { in.Now = time.UnixMilli(at(int64(24 * time.Hour / time.Millisecond))) }},
		{"rule2_retire_timer", []Event{opened(0, "old-done"), turnEnd(1, "old-done", OutcomeCompleted), opened(2, "old-error"), turnEnd(3, "old-error", OutcomeError),
			opened(4, "old-working"), opened(900_000, "new-done"), turnEnd(900_001, "new-done", OutcomeCompleted)},
			func(in *SnapshotInput) { in.Retire = RetireTimer; in.Now = time.UnixMilli(at(900_010)) }},
		{"rule4_settings_from_host", []Event{opened(0, "a")}, func(in *SnapshotInput) {
			in.Settings.Scale, in.Settings.Screen, in.Settings.Anchor, in.Settings.MaxRows = 1.25, "2", "top-right", 10
			in.Settings.Opacity, in.Settings.Motion, in.Settings.ShowProject, in.Settings.HoverMode = 0.8, "off", false, "open"
			in.Settings.HoldMs, in.Settings.TopEdgeOpens, in.Settings.GhostOpacity, in.Settings.Alerts = 500, false, 0.05, "needs-you"
			in.Settings.HideFullscreen = false
		}},
		{"rule5_nothing_invented", []Event{opened(0, "a")}, noop},
		{"rule6_show_done_false", []Event{opened(0, "w"), opened(1, "d"), turnEnd(2, "d", OutcomeCompleted), opened(3, "e"), turnEnd(4, "e", OutcomeError)},
			func(in *SnapshotInput) { in.Settings.ShowDone = false }},
		{"urls_known", []Event{opened(0, "a")}, func(in *SnapshotInput) {
			in.FinishedURL = ptr("http://127.0.0.1:51234/session-finished/api/status")
			in.OpenURL = ptr("http://127.0.0.1:51234/agents-notch/open")
		}},
		{"activity_null_before_first_turn", []Event{{Type: TypeSessionOpened, Session: "a", At: at(0), Title: "Fix it", Cwd: "/src/notch-web"}}, noop},
		{"activity_tool_out", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "roblox_verify")}, noop},
		{"activity_thinking_keeps_label", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "grep"), toolEnd(3, "a", "grep", OutcomeOK)}, noop},
		{"activity_new_turn_label_empty", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "grep"), toolEnd(3, "a", "grep", OutcomeError),
			turnEnd(4, "a", OutcomeCompleted), bare(5, TypeTurnStarted, "a")}, noop},
		{"approval_pending", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "pwsh"), askFor(3, "a", "pwsh", "Remove-Item -Recurse build")}, noop},
		{"approved_at_allowed_once", []Event{openedIn(0, "a", "/src/x"), askFor(3, "a", "pwsh", "x"), resolve(4, "a", OutcomeAllowedOnce)}, noop},
		{"approval_rejected", []Event{openedIn(0, "a", "/src/x"), askFor(3, "a", "pwsh", "x"), resolve(4, "a", OutcomeRejected)}, noop},
		{"error_streak_2", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "bash"), toolEnd(3, "a", "bash", OutcomeError),
			toolStart(4, "a", "bash"), toolEnd(5, "a", "bash", OutcomeError)}, noop},
		{"error_streak_reset", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "bash"), toolEnd(3, "a", "bash", OutcomeError),
			toolStart(4, "a", "edit"), toolEnd(5, "a", "edit", OutcomeOK)}, noop},
		{"turn_ended_error", []Event{openedIn(0, "a", "/src/x"), bare(1, TypeTurnStarted, "a"), turnEnd(9, "a", OutcomeError)}, noop},
		{"subagent_order_identity", []Event{openedIn(0, "parent", "/src/a"), openedIn(1, "other", "/src/b"),
			{Type: TypeSessionOpened, Session: "child", At: at(2), Cwd: "/src/a", Origin: OriginSubagent, Parent: "parent"}}, noop},
		{"project_from_windows_cwd", []Event{openedIn(0, "a", `C:\Users\me\Projects\blindKnifeArgon\`),
			{Type: TypeSessionOpened, Session: "b", At: at(1), Project: "named-wins", Cwd: `C:\Users\me\x`}}, noop},
		{"out_of_order_clamped", []Event{openedIn(100, "a", "/src/x"), turnEnd(50, "a", OutcomeCompleted)}, noop},
		{"session_finished_removed", []Event{opened(0, "a"), opened(1, "b"), bare(2, TypeSessionFinished, "a")}, noop},
		{"max_sessions_41", many, func(in *SnapshotInput) { in.Now = time.UnixMilli(at(1000)) }},
		{"demo_at_12s", demo(12 * time.Second), func(in *SnapshotInput) {
			in.Now = time.UnixMilli(t0 + 12_000)
			in.Context = Context{Budget: ptr(DemoBudget), HotAt: 0.5}
		}},
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFold()
			for _, ev := range tc.events {
				mustApply(t, f, ev)
			}
			in := input(10)
			tc.in(&in)
			doc := f.Snapshot(in)
			data, err := Encode(doc)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, data, "", "  "); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".golden.json")
			golden.Check(t, path, filepath.Join("testdata", tc.name+".actual.json"), got.Bytes(), *update)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The golden is a state.json a reader accepts, equal to the doc.
			back, err := Decode(want)
			if err != nil {
				t.Fatalf("the golden does not decode: %v", err)
			}
			if !reflect.DeepEqual(back, doc) {
				t.Errorf("decoded golden differs from the document")
			}
		})
	}
}
