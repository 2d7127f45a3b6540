package host

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// quietRemote is awayRemote whose machine can go quiet: its rows stay on
// the board, unknown.
type quietRemote struct {
	awayRemote
	quiet bool
}

func (r *quietRemote) Unknown() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.quiet {
		return nil
	}
	out := map[string]bool{}
	for _, s := range r.rows {
		out[s.ID] = true
	}
	return out
}

func (r *quietRemote) setQuiet(q bool) {
	r.mu.Lock()
	r.quiet = q
	r.mu.Unlock()
	r.changed()
}

// A hub's state.json tells the window the truth: another machine's rows
// are in sessions and summary while it is present; when it goes quiet they
// leave both (the window would draw its last state as current), while the
// board keeps them as unknown; when it is back, so are they.
func TestHubStateJSONForAQuietMachine(t *testing.T) {
	home := t.TempDir()
	r := &quietRemote{}
	r.rows = []state.Session{
		{ID: "box/s1", Status: state.StatusWorking, Identity: "teal"},
		{ID: "box/s2", Status: state.StatusAttention, Identity: "violet", Approval: &state.Approval{ToolName: "Bash"}},
	}
	statePath := filepath.Join(home, "state.json")
	h := New(Config{
		StatePath: statePath, ManualPath: filepath.Join(home, "manual.json"), Remote: r,
		Log: slog.New(slog.DiscardHandler),
	}, settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")}))
	if _, err := h.Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: "mine"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	type want struct {
		ids                       []string
		working, attention, total int
		status                    string
	}
	steps := []struct {
		name  string
		quiet bool
		want  want
	}{
		{"present", false, want{[]string{"mine", "box/s1", "box/s2"}, 2, 1, 3, state.StatusWorking}},
		{"quiet", true, want{[]string{"mine"}, 1, 0, 1, state.StatusWorking}},
		{"back", false, want{[]string{"mine", "box/s1", "box/s2"}, 2, 1, 3, state.StatusWorking}},
	}
	for _, st := range steps {
		r.setQuiet(st.quiet)
		var d state.Document
		waitfor.Until(t, "state.json with the machine "+st.name, func() bool {
			data, err := os.ReadFile(statePath)
			if err != nil {
				return false
			}
			if d, err = state.Decode(data); err != nil {
				return false
			}
			var ids []string
			for _, s := range d.Sessions {
				ids = append(ids, s.ID)
			}
			return slices.Equal(ids, st.want.ids)
		})
		if s := d.Summary; s.Working != st.want.working || s.Attention != st.want.attention || s.Total != st.want.total || s.Status != st.want.status {
			t.Errorf("%s: summary %+v, want %+v", st.name, s, st.want)
		}
		// The board keeps every row; the unknown ones say so.
		board, _ := h.Board().Snapshot(time.Now())
		if len(board.Sessions) != 3 {
			t.Errorf("%s: the board has %d rows, want all 3", st.name, len(board.Sessions))
		}
	}
}
