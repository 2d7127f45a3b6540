package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/ledger"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// TestStatuslineToLedger: a statusline report's windows go to the ledger
// with their as-of and reset, and its running cost once (the same total
// twice adds nothing); past the reset the window shows reset, not its old
// percentage.
func TestStatuslineToLedger(t *testing.T) {
	b := NewBoard(BoardConfig{}, false, settings.NewService(settings.Options{}))
	now := time.Unix(1_800_000_000, 0)
	if _, err := b.Ingest([]state.Event{{Type: "session.opened", Session: "s", Cwd: "/a/proj"}}, now); err != nil {
		t.Fatal(err)
	}
	cost := 0.25
	r := StatuslineReport{Session: "s", FiveHour: &ReportWindow{UsedPct: 23, ResetsAt: 1_800_000_600}, SevenDay: &ReportWindow{UsedPct: 41}, CostUSD: &cost}
	b.Report(r, now)
	b.Report(r, now.Add(time.Second))
	s := b.Ledger().Snapshot(now.Add(time.Second))
	if len(s.Figures) != 2 {
		t.Fatalf("figures %+v, want the 5-hour and 7-day windows", s.Figures)
	}
	f := s.Figures[0]
	if f.Agent != "claude-code" || f.Window != "five_hour" || f.UsedPct != 23 || f.ResetsAt.Unix() != 1_800_000_600 || !f.AsOf.Equal(now.Add(time.Second)) || f.State != ledger.Fresh {
		t.Errorf("5-hour figure %+v", f)
	}
	if len(s.Lines) != 1 || s.Lines[0].CostUSD != 0.25 || s.Lines[0].Session != "s" {
		t.Errorf("cost lines %+v, want $0.25 once", s.Lines)
	}
	later := b.Ledger().Snapshot(now.Add(11 * time.Minute))
	if later.Figures[0].State != ledger.Reset {
		t.Errorf("past its reset the 5-hour window is %s, want reset", later.Figures[0].State)
	}
}

// TestCodexRolloutToLedger: a Codex hook naming its rollout has the token
// reader take the rollout's windows and tokens into the ledger.
func TestCodexRolloutToLedger(t *testing.T) {
	dir := t.TempDir()
	h := New(Config{StatePath: filepath.Join(dir, "state.json"), ManualPath: filepath.Join(dir, "manual.json")},
		settings.NewService(settings.Options{PanePath: filepath.Join(dir, "settings.json")}))
	rollout := filepath.Join(dir, "rollout-x.jsonl")
	data, err := os.ReadFile(filepath.Join("..", "adapters", "codex", "testdata", "rollouts", "exec_ratelimits.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rollout, data, 0o600); err != nil {
		t.Fatal(err)
	}
	body := `{"session_id":"cx1","turn_id":"1","transcript_path":"` + rollout + `","cwd":"/a/proj","hook_event_name":"Stop","stop_hook_active":false}`
	if _, err := h.Hook("codex", []byte(body), time.Now()); err != nil {
		t.Fatal(err)
	}
	h.tokens.readDue(time.Now().Add(time.Hour), func(string, int64) {})
	s := h.Board().Ledger().Snapshot(time.Date(2026, 12, 7, 15, 53, 0, 0, time.UTC))
	if len(s.Figures) != 2 || s.Figures[0].Window != "primary" || s.Figures[0].UsedPct != 42 || s.Figures[0].ResetsAt.Unix() != 1796669537 ||
		s.Figures[1].Window != "secondary" || s.Figures[1].UsedPct != 17 {
		t.Fatalf("figures %+v, want Codex's primary at 42%% and secondary at 17%%", s.Figures)
	}
	if len(s.Lines) != 1 || s.Lines[0].InputTokens != 2000 || s.Lines[0].OutputTokens != 12 || s.Lines[0].HasCost {
		t.Errorf("lines %+v, want 2000 in, 12 out, no cost", s.Lines)
	}
}
