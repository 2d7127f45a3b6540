package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/notify"
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

	mu    sync.Mutex
	base  map[string]install.Installed // by path: as at start, notch-web's hooks there
	words map[string]string            // by path: what the board says now
	keys  map[string]string            // by path: the fault said, less its time
	subs  notify.Broadcast
}

func newHookWatch(home string, getenv func(string) string, log *slog.Logger) *hookWatch {
	return &hookWatch{
		status: func(agent string) ([]install.Installed, error) {
			return install.Status(install.Options{Agent: agent, Scope: install.ScopeUser, Home: home, Dir: home, Getenv: getenv})
		},
		log: log, now: time.Now, base: map[string]install.Installed{}, words: map[string]string{}, keys: map[string]string{},
	}
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
		word, key := hookWord(b, now[path], w.now()), hookWord(b, now[path], time.Time{})
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
func hookWord(was, now install.Installed, at time.Time) string {
	name := was.Agent
	when := at.Format("15:04")
	fix := " — reinstall: notch-web hooks install " + was.Agent
	switch {
	case !now.Exists:
		return fmt.Sprintf("%s's settings file %s was removed at %s%s", name, was.Path, when, fix)
	case now.Problem != "":
		return fmt.Sprintf("%s's settings file %s no longer parses (at %s)%s", name, was.Path, when, fix)
	case len(now.Events) == 0:
		return fmt.Sprintf("%s's hooks were removed from %s at %s%s", name, was.Path, when, fix)
	}
	var gone []string
	for _, e := range was.Events {
		if !slices.Contains(now.Events, e) {
			gone = append(gone, e)
		}
	}
	if len(gone) > 0 {
		return fmt.Sprintf("%s's hooks for %s were removed from %s at %s%s", name, strings.Join(gone, ", "), was.Path, when, fix)
	}
	return ""
}

// HubLink is what the board's status line says of the hooks.
func (w *hookWatch) HubLink() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	words := make([]string, 0, len(w.words))
	for _, p := range slices.Sorted(mapKeys(w.words)) {
		words = append(words, w.words[p])
	}
	return strings.Join(words, " · ")
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
	go func() {
		for {
			select {
			case <-hc:
			case <-lc:
			case <-done:
				return
			}
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}()
	var once sync.Once
	return c, func() { once.Do(func() { close(done); stopH(); stopL() }) }
}

// userHome is the home the agents' user-scope settings are under.
func userHome(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}
