package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/notify"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/web"
	"github.com/notch-web/notch-web/web/templates"
)

// hookWatch notices when notch-web's hooks leave an agent's settings: the
// host watches each file where they were installed when it started (the
// user scope's, the ones hooks status lists; fsx.Watch, no polling while
// nothing changes) and, when one changes, reads it again. Hooks removed
// (all, or some events'), or a file that no longer parses, are said on the
// board (its status line, beside a joined machine's word on its hub) and
// in one log record each; put back, the word goes.
type hookWatch struct {
	status func(agent string) ([]install.Installed, error)
	log    *slog.Logger
	now    func() time.Time
	home   string // written ~ in the banner

	// install puts an agent's hooks back (the pane's Reinstall): the same
	// install.Install as notch-web hooks install <agent>.
	install func(agent string) (install.Result, error)

	mu    sync.Mutex
	base  map[string]install.Installed // by path: as at start, notch-web's hooks there
	words map[string]string            // by path: what the board says now
	keys  map[string]string            // by path: the fault said, less its time
	// silent are the hook channels gone silent while their agent works
	// (host.Host.OnSilence), said after the files' words.
	silent []host.Silence
	subs   notify.Broadcast
}

// newHookWatch watches the user scope under home. base is this host's
// URL, which a reinstalled http hook posts to.
func newHookWatch(home, base string, getenv func(string) string, log *slog.Logger) *hookWatch {
	return &hookWatch{
		status: func(agent string) ([]install.Installed, error) {
			return install.Status(install.Options{Agent: agent, Scope: install.ScopeUser, Home: home, Dir: home, Getenv: getenv})
		},
		install: func(agent string) (install.Result, error) {
			o, err := reinstallOptions(agent, home, base, getenv, executable)
			if err != nil {
				return install.Result{}, err
			}
			return install.Install(o)
		},
		log: log, now: time.Now, home: home, base: map[string]install.Installed{}, words: map[string]string{}, keys: map[string]string{},
	}
}

// reinstallOptions are notch-web hooks install <agent>'s options with no
// flag given, but for the URL: the hooks are put back pointing at this
// host, wherever it listens (a command hook is given it only when the hook
// command's default would miss it).
func reinstallOptions(agent, home, base string, getenv func(string) string, exe func(string) (string, error)) (install.Options, error) {
	spec, ok := registry.Get(agent)
	if !ok || !slices.Contains(install.Agents, agent) {
		return install.Options{}, fmt.Errorf("unknown agent %q", agent)
	}
	o := install.Options{Agent: agent, Scope: install.ScopeUser, Home: home, Dir: home, Getenv: getenv, URL: base}
	if !spec.HTTP() && base == hostURL("", getenv) {
		o.URL = ""
	}
	var err error
	if o.Exe, err = exe(""); err != nil {
		return install.Options{}, err
	}
	return o, nil
}

// Reinstall is the pane's one click: notch-web hooks install <agent> (the
// same merge and backup), then the watch reads the files again, so the
// banner goes at once. Only an agent the watch holds a file of may be
// reinstalled: the click puts back what was there, nothing new.
func (w *hookWatch) Reinstall(agent string) (install.Result, error) {
	if !w.held(agent) {
		return install.Result{}, fmt.Errorf("%w: %q", web.ErrNotWatched, agent)
	}
	res, err := w.install(agent)
	if err != nil {
		w.log.Warn("reinstalling an agent's hooks", "log_type", logx.TypeHooks, logx.Err("ReinstallError", err), slog.Group("data", "agent", agent))
		return res, err
	}
	w.log.Info("an agent's hooks reinstalled from the pane", "log_type", logx.TypeHooks, slog.Group("data", "agent", agent))
	w.check()
	return res, nil
}

// held reports whether the watch holds a file of agent's.
func (w *hookWatch) held(agent string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.heldLocked(agent)
}

func (w *hookWatch) heldLocked(agent string) bool {
	for _, b := range w.base {
		if b.Agent == agent {
			return true
		}
	}
	return false
}

// Faults are the pane's banners: one per file whose hooks are gone.
func (w *hookWatch) Faults() []templates.HookFault {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]templates.HookFault, 0, len(w.words)+len(w.silent))
	for _, p := range slices.Sorted(mapKeys(w.words)) {
		out = append(out, templates.HookFault{Agent: w.base[p].Agent, Text: w.words[p], Reinstall: true})
	}
	for _, s := range w.silent {
		out = append(out, templates.HookFault{Agent: s.Agent, Text: silenceWord(s), Reinstall: w.heldLocked(s.Agent)})
	}
	return out
}

// Run watches until ctx ends.
func (w *hookWatch) Run(ctx context.Context) error {
	var files []string
	for _, a := range install.Agents {
		st, err := w.status(a)
		if err != nil {
			continue
		}
		for _, s := range st {
			if s.Exists && s.Problem == "" && len(s.Events) > 0 {
				w.mu.Lock()
				w.base[s.Path] = s
				w.mu.Unlock()
				files = append(files, s.Path)
			}
		}
	}
	if len(files) == 0 {
		return nil
	}
	return fsx.Watch(ctx, files, w.check, func(err error) {
		w.log.Warn("watching the agents' settings", "log_type", logx.TypeHooks, logx.Err("HookWatchError", err))
	})
}

// check reads every watched file again and updates what the board says.
func (w *hookWatch) check() {
	agents := map[string]bool{}
	w.mu.Lock()
	for _, b := range w.base {
		agents[b.Agent] = true
	}
	w.mu.Unlock()
	now := map[string]install.Installed{}
	for a := range agents {
		st, _ := w.status(a)
		for _, s := range st {
			now[s.Path] = s
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := false
	for path, b := range w.base {
		word, key := hookWord(b, now[path], w.now(), w.home), hookWord(b, now[path], time.Time{}, w.home)
		switch {
		case word == "" && w.keys[path] != "":
			delete(w.words, path)
			delete(w.keys, path)
			changed = true
			w.log.Info("an agent's hooks are back", "log_type", logx.TypeHooks, slog.Group("data", "agent", b.Agent, "path", path))
		case word != "" && key != w.keys[path]:
			w.words[path], w.keys[path] = word, key
			changed = true
			w.log.Warn(word, "log_type", logx.TypeHooks, slog.Group("data", "agent", b.Agent, "path", path))
		}
	}
	if changed {
		w.subs.Notify()
	}
}

// hookWord is what the board says of one file: "" while notch-web's hooks
// are there as they were.
func hookWord(was, now install.Installed, at time.Time, home string) string {
	name := displayName(was.Agent)
	when := at.Format("15:04")
	path := tildePath(was.Path, home)
	fix := " — reinstall: notch-web hooks install " + was.Agent
	switch {
	case !now.Exists:
		return fmt.Sprintf("%s's settings file %s was removed at %s%s", name, path, when, fix)
	case now.Problem != "":
		return fmt.Sprintf("%s's settings file %s no longer parses (at %s)%s", name, path, when, fix)
	case len(now.Events) == 0:
		return fmt.Sprintf("%s's hooks were removed from %s at %s%s", name, path, when, fix)
	}
	var gone []string
	for _, e := range was.Events {
		if !slices.Contains(now.Events, e) {
			gone = append(gone, e)
		}
	}
	if len(gone) > 0 {
		return fmt.Sprintf("%s's hooks for %s were removed from %s at %s%s", name, strings.Join(gone, ", "), path, when, fix)
	}
	return ""
}

// displayName is the agent's name as people know it ("Claude Code").
func displayName(agent string) string {
	if s, ok := registry.Get(agent); ok && s.Display != "" {
		return s.Display
	}
	return agent
}

// tildePath writes a path under home as ~/…, as the user types it.
func tildePath(path, home string) string {
	if home == "" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return "~" + string(filepath.Separator) + rel
	}
	return path
}

// HubLink is what the board's status line says of the hooks.
func (w *hookWatch) HubLink() string {
	words := []string{}
	for _, f := range w.Faults() {
		words = append(words, f.Text)
	}
	return strings.Join(words, " · ")
}

// setSilent is host.Host.OnSilence's: the hook channels silent now. A
// channel that falls silent is logged once; one that speaks again too.
func (w *hookWatch) setSilent(now []host.Silence) {
	w.mu.Lock()
	was := w.silent
	w.silent = now
	w.mu.Unlock()
	for _, s := range now {
		if !slices.ContainsFunc(was, func(o host.Silence) bool { return o.Session == s.Session }) {
			w.log.Warn(silenceWord(s), "log_type", logx.TypeHooks, slog.Group("data", "agent", s.Agent, "session", s.Session))
		}
	}
	for _, s := range was {
		if !slices.ContainsFunc(now, func(o host.Silence) bool { return o.Session == s.Session }) {
			w.log.Info("an agent's hooks are heard again", "log_type", logx.TypeHooks, slog.Group("data", "agent", s.Agent, "session", s.Session))
		}
	}
	w.subs.Notify()
}

// silenceWord is what the board and the pane say of a silent channel:
// the connection's fault, not the agent's.
func silenceWord(s host.Silence) string {
	return fmt.Sprintf("no hook from %s for %d min while it works (session %s, busy since %s) — the hook connection is broken? notch-web hooks status %s",
		displayName(s.Agent), int(host.SilentAfter/time.Minute), textrule.Quote(s.Session), s.Since.Format("15:04"), s.Agent)
}

// SubscribeLink wakes the board when the word changes.
func (w *hookWatch) SubscribeLink() (<-chan struct{}, func()) { return w.subs.Subscribe() }

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// boardWords is the board's status line from two sources: a joined
// machine's word on its hub and the hooks' word, each nil-able.
type boardWords struct {
	link  interface{ HubLink() string }
	hooks *hookWatch
}

func (b boardWords) HubLink() string {
	var out []string
	if b.link != nil {
		if s := b.link.HubLink(); s != "" {
			out = append(out, s)
		}
	}
	if s := b.hooks.HubLink(); s != "" {
		out = append(out, s)
	}
	return strings.Join(out, " · ")
}

// SubscribeLink wakes on either's change.
func (b boardWords) SubscribeLink() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	hc, stopH := b.hooks.SubscribeLink()
	var lc <-chan struct{}
	stopL := func() {}
	if s, ok := b.link.(interface {
		SubscribeLink() (<-chan struct{}, func())
	}); ok {
		lc, stopL = s.SubscribeLink()
	}
	done := make(chan struct{})
	go relayWakes(b.hooks.log, c, done, hc, lc)
	var once sync.Once
	return c, func() { once.Do(func() { close(done); stopH(); stopL() }) }
}

// relayWakes passes each wake-up of a or b on to out (one pending is
// enough) until done closes. A panic on it is the standard fatal record
// and exit 2 (logx.Guard), never a raw trace.
func relayWakes(log *slog.Logger, out chan<- struct{}, done <-chan struct{}, a, b <-chan struct{}) {
	defer logx.Guard(log)()
	for {
		select {
		case <-a:
		case <-b:
		case <-done:
			return
		}
		select {
		case out <- struct{}{}:
		default:
		}
	}
}
