package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/changes"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/udiff"
	"github.com/notch-web/notch-web/state"
)

// Another machine's row's Changes (issue 51), as its Reply goes
// (steer.go): the hub's GET becomes a NATS request to
// notch.<machine>.changes, which only that machine receives and no machine
// may send (machinePerms). The machine computes the view with its own
// Host.Changes — its own git, its own start point — and replies with it,
// at most a NATS message (its lines cut from the last file first when it
// would not fit). The hub takes every string as text again
// (textrule.Escape) and every count within the view's own limits: a
// machine is not trusted to have done so.

// changesWait bounds the hub's wait for the machine's view.
const changesWait = changes.Timeout + 2*time.Second

// maxChangesBody is the largest view a machine replies with: under the
// hub's NATS message limit (1 MiB), with room for the headers.
const maxChangesBody = 1<<20 - 8<<10

func changesSubject(machine string) string { return machineSubject(machine, "changes") }

// wireChangesAsk is the hub's request.
type wireChangesAsk struct {
	Session string `json:"session"`
}

// wireChanges is the machine's reply.
type wireChanges struct {
	OK    bool   `json:"ok"`
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"`

	Files         []wireChangedFile `json:"files,omitempty"`
	FilesMore     int               `json:"filesMore,omitempty"`
	Untracked     []string          `json:"untracked,omitempty"`
	UntrackedMore int               `json:"untrackedMore,omitempty"`
	Moved         bool              `json:"moved,omitempty"`
	Base          string            `json:"base,omitempty"`
	BaseGone      bool              `json:"baseGone,omitempty"`
}

type wireChangedFile struct {
	Path    string `json:"path"`
	OldPath string `json:"oldPath,omitempty"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	More    int    `json:"more,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
	CRLF    bool   `json:"crlf,omitempty"`
	Earlier bool   `json:"earlier,omitempty"`
	// Lines are [op, old, new, text] each (op one of " -+@").
	Lines [][4]any `json:"lines,omitempty"`
}

// Refusal codes of a Changes view, each a changes or host error.
var changesCodes = []struct {
	code string
	err  error
}{
	{"not-git", changes.ErrNotGit},
	{"gone", changes.ErrGone},
	{"no-git", changes.ErrNoGit},
	{"no-start", changes.ErrNoStart},
	{"following", host.ErrChangesOff},
}

func changesCode(err error) string {
	for _, c := range changesCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "failed"
}

// Changer computes this machine's row's Changes: *host.Host's Changes.
type Changer func(ctx context.Context, id string) (changes.Result, error)

// SetChanger gives a publishing machine the way to answer the hub's asks
// for its rows' Changes. Without one, every one is refused.
func (n *Node) SetChanger(c Changer) {
	n.boardMu.Lock()
	n.changer = c
	n.boardMu.Unlock()
}

// encodeChanges is a view as the machine replies with it, within
// maxChangesBody: the last files' lines left out (counted) until it fits.
func encodeChanges(r changes.Result) []byte {
	w := wireChanges{OK: true, FilesMore: r.FilesMore, Untracked: r.Untracked, UntrackedMore: r.UntrackedMore,
		Moved: r.Moved, Base: r.Base, BaseGone: r.BaseGone}
	for _, f := range r.Files {
		w.Files = append(w.Files, wireFile(f.File, f.Earlier))
	}
	for i := len(w.Files) - 1; ; i-- {
		b, _ := json.Marshal(w)
		if len(b) <= maxChangesBody || i < 0 {
			return b
		}
		for _, l := range w.Files[i].Lines {
			if l[0] != string(udiff.Hunk) {
				w.Files[i].More++
			}
		}
		w.Files[i].Lines = nil
	}
}

// decodeChanges reads a machine's view as the hub shows it: every string
// text, every count within the view's limits.
func decodeChanges(data []byte) (changes.Result, error) {
	var w wireChanges
	if len(data) > 1<<20 || jsonx.DecodeOne(data, &w, jsonx.Options{}) != nil {
		return changes.Result{}, errors.New("not a view")
	}
	if !w.OK {
		for _, c := range changesCodes {
			if c.code == w.Code {
				return changes.Result{}, c.err
			}
		}
		return changes.Result{}, changes.ErrGit
	}
	text := func(s string, max int) string { return state.Cut(textrule.Escape(s, ""), max) }
	count := func(n int) int { return min(max(n, 0), 1<<30) }
	r := changes.Result{FilesMore: count(w.FilesMore), UntrackedMore: count(w.UntrackedMore), Moved: w.Moved,
		Base: text(w.Base, 40), BaseGone: w.BaseGone}
	for i, u := range w.Untracked {
		if i >= changes.MaxUntracked {
			r.UntrackedMore++
			continue
		}
		r.Untracked = append(r.Untracked, text(u, 1024))
	}
	used := 0
	for i, wf := range w.Files {
		if i >= changes.MaxFiles {
			r.FilesMore++
			continue
		}
		f := changes.File{Earlier: wf.Earlier}
		f.File = decodeFile(wf, changes.FileLimits, changes.Budget, &used)
		r.Files = append(r.Files, f)
	}
	return r, nil
}

// decodeFile is one file of a machine's diff as the hub shows it: its
// strings text, its counts within lim, its lines within lim and what is
// left of budget (used counts the text taken so far).
func decodeFile(wf wireChangedFile, lim udiff.Limits, budget int, used *int) udiff.File {
	text := func(s string, max int) string { return state.Cut(textrule.Escape(s, ""), max) }
	count := func(n int) int { return min(max(n, 0), 1<<30) }
	f := udiff.File{Path: text(wf.Path, 1024), OldPath: text(wf.OldPath, 1024), Status: text(wf.Status, 16)}
	f.Added, f.Removed, f.More, f.Binary, f.CRLF = count(wf.Added), count(wf.Removed), count(wf.More), wf.Binary, wf.CRLF
	for _, l := range wf.Lines {
		op, _ := l[0].(string)
		old, _ := l[1].(float64)
		nw, _ := l[2].(float64)
		t, _ := l[3].(string)
		t = state.Cut(textrule.Escape(t, "\t"), lim.LineBytes+4)
		if len(op) != 1 || !isOp(op[0]) || len(f.Lines) >= lim.Lines || *used+len(t) > budget {
			if op != string(udiff.Hunk) {
				f.More++
			}
			continue
		}
		*used += len(t)
		f.Lines = append(f.Lines, udiff.Line{Op: op[0], Old: count(int(old)), New: count(int(nw)), Text: t})
	}
	return f
}

// wireFile is a file of a diff as a machine sends it.
func wireFile(f udiff.File, earlier bool) wireChangedFile {
	wf := wireChangedFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Added: f.Added, Removed: f.Removed,
		More: f.More, Binary: f.Binary, CRLF: f.CRLF, Earlier: earlier}
	for _, l := range f.Lines {
		wf.Lines = append(wf.Lines, [4]any{string(l.Op), l.Old, l.New, l.Text})
	}
	return wf
}

func isOp(b byte) bool {
	return b == udiff.Kept || b == udiff.Added || b == udiff.Removed || b == udiff.Hunk
}

// onChanges computes the view the hub asked for and replies.
func (n *Node) onChanges(m *nats.Msg) {
	reply := func(b []byte) { _ = m.Respond(b) }
	refuse := func(code, msg string) {
		b, _ := json.Marshal(wireChanges{Code: code, Error: msg})
		reply(b)
	}
	var ask wireChangesAsk
	if len(m.Data) > 1024 || jsonx.DecodeOne(m.Data, &ask, jsonx.Options{Strict: true}) != nil || !state.ValidSessionID(ask.Session) {
		refuse("failed", "not a request for a session's changes")
		return
	}
	n.boardMu.Lock()
	c := n.changer
	n.boardMu.Unlock()
	if c == nil {
		refuse("no-start", changes.ErrNoStart.Error())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), changes.Timeout)
	defer cancel()
	r, err := c(ctx, ask.Session)
	if err != nil {
		refuse(changesCode(err), err.Error())
		return
	}
	n.log.Info("changes computed for the hub", "log_type", logx.TypeMesh, slog.Group("data", "session", ask.Session, "files", len(r.Files)))
	reply(encodeChanges(r))
}

// sendChanges is the hub's side: the ask, and the machine's view.
func (n *Node) sendChanges(ctx context.Context, machine, session string) (changes.Result, error) {
	body, _ := json.Marshal(wireChangesAsk{Session: session})
	ctx, cancel := context.WithTimeout(ctx, changesWait)
	defer cancel()
	msg, err := n.nc.RequestWithContext(ctx, changesSubject(machine), body)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return changes.Result{}, fmt.Errorf("%w: %s is not connected to the hub", host.ErrMachineAway, machine)
	case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return changes.Result{}, fmt.Errorf("%w: %s did not reply within %v", host.ErrMachineAway, machine, changesWait)
	case err != nil:
		return changes.Result{}, fmt.Errorf("%w: %s could not be asked (%v)", host.ErrMachineAway, machine, err)
	}
	r, err := decodeChanges(msg.Data)
	if err != nil && err.Error() == "not a view" {
		return changes.Result{}, fmt.Errorf("%w: %s replied with something that is not a view", host.ErrMachineAway, machine)
	}
	return r, err
}

// Changes is host.RemoteChanges': another machine's row's view, asked of
// that machine. A machine that is not present is not asked.
func (r *remote) Changes(ctx context.Context, id string) (changes.Result, error) {
	name, sid, ok := r.resolve(id)
	if !ok || CheckName(name) != nil {
		return changes.Result{}, changes.ErrNoStart
	}
	r.mu.Lock()
	m := r.machines[name]
	present := m != nil && m.present
	send := r.sendChanges
	r.mu.Unlock()
	if m == nil || send == nil {
		return changes.Result{}, changes.ErrNoStart
	}
	if !present {
		return changes.Result{}, fmt.Errorf("%w: %s is quiet", host.ErrMachineAway, name)
	}
	return send(ctx, name, sid)
}
