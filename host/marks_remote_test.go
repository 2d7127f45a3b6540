package host

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// awayRemote is another machine, "box", whose board comes and goes; it
// records the close-outs sent to it.
type awayRemote struct {
	mu        sync.Mutex
	rows      []state.Session
	changed   func()
	retired   []string
	consulted int // Has or Retire asked of a row
}

func (r *awayRemote) Attach(c func()) { r.changed = c }
func (r *awayRemote) Compose(d state.Document, _ time.Time) state.Document {
	r.mu.Lock()
	defer r.mu.Unlock()
	return state.Compose(d, slices.Clone(r.rows), true)
}
func (r *awayRemote) Owns(id string) bool { return strings.HasPrefix(id, "box/") }
func (r *awayRemote) Has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.consulted++
	return slices.ContainsFunc(r.rows, func(s state.Session) bool { return s.ID == id })
}
func (r *awayRemote) Unknown() map[string]bool { return nil }
func (r *awayRemote) Retire(ids ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.consulted++
	for _, id := range ids {
		if slices.ContainsFunc(r.rows, func(s state.Session) bool { return s.ID == id }) {
			r.retired = append(r.retired, id)
		}
	}
	return true
}
func (r *awayRemote) Cards() CardSet                            { return CardSet{} }
func (r *awayRemote) Answer(AnswerRequest) (Card, error)        { return Card{}, ErrMachineAway }
func (r *awayRemote) Steer(context.Context, SteerRequest) error { return ErrMachineAway }
func (r *awayRemote) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.retired)
}
func (r *awayRemote) back(rows ...state.Session) {
	r.mu.Lock()
	r.rows = rows
	r.mu.Unlock()
	r.changed()
}

var _ Remote = (*awayRemote)(nil)

// A ✕ the hub answered survives the hub killed before the machine heard
// it: the mark is in the hub's manual.json, and when the restarted hub
// reads it before the machine's board is back, the close-out waits for the
// row and goes to the machine once it is there — not dropped because the
// row was not yet on the board.
func TestCloseOutWaitsForTheMachinesRow(t *testing.T) {
	home := t.TempDir()
	manual := filepath.Join(home, "manual.json")
	if err := state.MergeMark(manual, "box/s1", state.Mark{State: state.MarkFinished, At: time.Now().UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	r := &awayRemote{}
	h := New(Config{
		StatePath: filepath.Join(home, "state.json"), ManualPath: manual, Remote: r,
		Log: slog.New(slog.DiscardHandler),
	}, settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitfor.Until(t, "the host to have read manual.json", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.consulted > 0 })
	// The machine is back with its board: the row the hub closed out is
	// in it (the machine never heard of the ✕).
	r.back(state.Session{ID: "box/s1", Status: state.StatusDone}, state.Session{ID: "box/s2", Status: state.StatusWorking})
	waitfor.Until(t, "the close-out to go to the machine", func() bool { return slices.Equal(r.sent(), []string{"box/s1"}) })
	r.back(state.Session{ID: "box/s2", Status: state.StatusWorking}, state.Session{ID: "box/s3", Status: state.StatusWorking})
	if got := r.sent(); !slices.Equal(got, []string{"box/s1"}) {
		t.Fatalf("close-outs sent %v, want box/s1 once", got)
	}
}
