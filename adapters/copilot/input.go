package copilot

import (
	"strings"

	"github.com/notch-web/notch-web/internal/screen"
)

// EmptyInput reports whether GitHub Copilot CLI's input is empty on its
// screen (capture-pane -p -e): the input is the lines between the
// screen's last two rules (dim lines of "─"), its first line the prompt
// "❯" with nothing typed after it, and no other line. A draft, a draft of
// many lines, or a screen without the box (a dialog, the ask_user form) is
// not empty. Checked with Copilot CLI 1.0.102 in tmux (docs/terminal.md;
// testdata/screens).
func EmptyInput(capture string) bool {
	lines := screen.Lines(capture)
	var rules []int
	for i, l := range lines {
		if t := strings.TrimSpace(l.Text); t != "" && strings.Trim(t, "─") == "" {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return false
	}
	box := lines[rules[len(rules)-2]+1 : rules[len(rules)-1]]
	if len(box) != 1 {
		return false
	}
	rest, ok := box[0].After("❯")
	return ok && rest.Blank()
}
