package registry

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/adapters/agent"
)

// TestSpecs: every agent is whole: a name, a version, a mapping, hooks
// with distinct events, a kind the installer writes and a timeout, scopes
// with distinct names and a file, help, and its own word on how a turn
// ended (Settled: a restarted host reconciles every row, README), and its
// rule for an empty input (EmptyInput: a Reply is never typed over a draft).
func TestSpecs(t *testing.T) {
	names, marks := map[string]bool{}, map[string]bool{}
	for _, s := range All {
		if s.Name == "" || names[s.Name] || s.Display == "" || s.Version == "" || s.Map == nil || s.Help == "" {
			t.Errorf("%q: incomplete or repeated: %+v", s.Name, s)
		}
		names[s.Name] = true
		if l := s.Launch; l != nil && (len(l.Argv) == 0 || l.Argv[0] == "" || strings.HasPrefix(l.Argv[0], "-")) {
			t.Errorf("%s: Launch without a program: %q", s.Name, l.Argv)
		}
		if s.Settled == nil {
			t.Errorf("%s: no Settled: a row whose turn ended while the host was down would stay working", s.Name)
		}
		if s.EmptyInput == nil {
			t.Errorf("%s: no EmptyInput: a Reply from the board would be refused (it cannot tell a draft from an empty input)", s.Name)
		}
		if n := utf8.RuneCountInString(s.Mark); n < 1 || n > 2 || marks[s.Mark] {
			t.Errorf("%s: mark %q: one or two letters, its own", s.Name, s.Mark)
		}
		marks[s.Mark] = true
		if got, ok := Get(s.Name); !ok || got.Name != s.Name {
			t.Errorf("Get(%q) = %v", s.Name, ok)
		}
		events := map[string]bool{}
		for _, h := range s.Hooks {
			switch {
			case h.Event == "" || events[h.Event]:
				t.Errorf("%s: event %q empty or repeated", s.Name, h.Event)
			case h.Kind != agent.HTTP && h.Kind != agent.Command:
				t.Errorf("%s %s: kind %q", s.Name, h.Event, h.Kind)
			case h.Kind == agent.HTTP && s.Install.Style != agent.StyleClaude && s.Install.Plugin == nil:
				t.Errorf("%s %s: an http hook in style %q", s.Name, h.Event, s.Install.Style)
			case h.Timeout <= 0:
				t.Errorf("%s %s: no timeout", s.Name, h.Event)
			}
			events[h.Event] = true
		}
		if len(s.Hooks) == 0 || len(s.Install.Scopes) == 0 || s.Install.Scopes[0].Name != "user" {
			t.Errorf("%s: no hooks, or no user scope first", s.Name)
		}
		scopes := map[string]bool{}
		for _, sc := range s.Install.Scopes {
			if sc.Name == "" || scopes[sc.Name] || sc.File == "" {
				t.Errorf("%s: scope %+v", s.Name, sc)
			}
			scopes[sc.Name] = true
		}
		if s.Install.Style == agent.StyleGemini && s.Install.Name == "" {
			t.Errorf("%s: named hooks without a name", s.Name)
		}
		if p := s.Install.Plugin; p != nil && (p.Marker == "" || p.Source == nil ||
			!strings.HasPrefix(string(p.Source("/x/notch-web", "")), p.Marker+"\n")) {
			t.Errorf("%s: a plugin file whose first line is not its marker", s.Name)
		}
	}
	if _, ok := Get("cursor"); ok {
		t.Error("Get found an agent that is not there")
	}
}
