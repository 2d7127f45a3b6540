package store

import (
	"context"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
)

// TestLaunchesAreKept: a start and a refusal from the board are kept
// (who, where, what; the store has no field for a prompt), newest first,
// and pruned with the days.
func TestLaunchesAreKept(t *testing.T) {
	now := day0
	s := open(t, &now, Options{Days: 30})
	var _ host.LaunchRecorder = s
	s.RecordLaunch(host.RecordedLaunch{At: day0, Device: "phone", Folder: "/src/api", Agent: "codex", Outcome: "the folder is not allowed"})
	s.RecordLaunch(host.RecordedLaunch{At: day0.Add(time.Minute), Folder: "/src/api", Agent: "claude-code", Worktree: "/src/.wt/api-fix", Pane: "%3", Outcome: "started"})
	flush(t, s)
	got, err := s.Launches(context.Background(), 10)
	if err != nil || len(got) != 2 || got[0].Outcome != "started" || got[0].Pane != "%3" || got[1].Device != "phone" || got[1].Agent != "codex" {
		t.Fatalf("Launches: %+v, %v", got, err)
	}
	now = day0.AddDate(0, 0, 31)
	if _, err := s.Prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Launches(context.Background(), 10); len(got) != 0 {
		t.Fatalf("after the days: %+v", got)
	}
}
