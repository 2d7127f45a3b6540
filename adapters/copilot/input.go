package copilot

import (
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
	box, ok := screen.Boxed(screen.Lines(capture))
	if !ok {
		return false
	}
	if len(box) != 1 {
		return false
	}
	rest, ok := box[0].After("❯")
	return ok && rest.Blank()
}
