package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyInput reads Pi 0.73.1's screens (tmux capture-pane -p -e):
// empty at start, a draft of one line, of two.
func TestEmptyInput(t *testing.T) {
	for name, want := range map[string]bool{"empty": true, "draft": false, "draft_two_lines": false} {
		b, err := os.ReadFile(filepath.Join("testdata", "screens", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got := EmptyInput(string(b)); got != want {
			t.Errorf("%s: EmptyInput = %v, want %v", name, got, want)
		}
	}
	rule := strings.Repeat("─", 40)
	for screen, want := range map[string]bool{
		"":                                   false, // nothing drawn
		"no rules\n":                         false,
		rule + "\n\n" + rule + "\n":          true,
		rule + "\n \x1b[7m \x1b[0m\n" + rule: true, // the cursor alone
		rule + "\nx\n" + rule:                false,
		rule + "\n" + rule:                   true,
		"─ ─\n\n─ ─\n":                       false, // not a rule
	} {
		if got := EmptyInput(screen); got != want {
			t.Errorf("EmptyInput(%q) = %v, want %v", screen, got, want)
		}
	}
}
