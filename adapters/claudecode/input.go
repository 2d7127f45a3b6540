package claudecode

import (
	"github.com/notch-web/notch-web/internal/screen"
)

// EmptyInput reports whether Claude Code's input box is empty on its
// screen (capture-pane -p -e): the box is the lines between the screen's
// last two rules (lines of "─"), its first line the prompt "❯" followed by
// nothing typed (a dim hint is not typed), the others blank. A screen
// without the box (a dialog, a menu) is not empty: nothing is typed into
// it. Checked with Claude Code 2.1.328 in tmux (docs/terminal.md).
func EmptyInput(capture string) bool {
	box, ok := screen.Boxed(screen.Lines(capture))
	if !ok {
		return false
	}
	if len(box) == 0 {
		return false
	}
	first, ok := box[0].After("❯")
	if !ok || !first.Blank() {
		return false
	}
	for _, l := range box[1:] {
		if !l.Blank() {
			return false
		}
	}
	return true
}
