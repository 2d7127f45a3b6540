package codex

import "github.com/notch-web/notch-web/internal/screen"

// EmptyInput reports whether Codex's composer is empty on its screen
// (capture-pane -p -e): the composer is the last line that starts with
// its prompt "›", and holds nothing typed — its placeholder ("Ask Codex to
// do anything", one of several) is drawn dim — with a blank line under
// it (a draft of many lines goes on there). A screen whose last "›" line
// holds text (a draft, a menu's choice) is not empty. Checked with Codex
// 0.169.0 in tmux (docs/terminal.md).
func EmptyInput(capture string) bool {
	lines := screen.Lines(capture)
	for i := len(lines) - 1; i >= 0; i-- {
		rest, ok := lines[i].After("›")
		if !ok {
			continue
		}
		return rest.Blank() && (i+1 == len(lines) || lines[i+1].Blank())
	}
	return false
}
