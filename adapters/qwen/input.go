package qwen

import (
	"strings"

	"github.com/notch-web/notch-web/internal/screen"
)

// placeholder is what Qwen Code 0.24's empty input shows after its prompt
// (in its own grey, not dim).
const placeholder = "Type your message or @path/to/file"

// EmptyInput reports whether Qwen Code's input is empty on its screen
// (capture-pane -p -e): the input is the one line between the screen's
// last two rules (lines of "─"), its prompt ">" followed by nothing or
// the placeholder (the cursor a zero-width space after it). A draft, a
// draft of many lines (more lines in the box), shell mode ("!") or a
// screen without the box (a dialog) is not empty. Checked with Qwen Code
// 0.24.4 in tmux (docs/terminal.md; testdata/screens).
func EmptyInput(capture string) bool {
	box, ok := screen.Boxed(screen.Lines(capture))
	if !ok {
		return false
	}
	if len(box) != 1 {
		return false
	}
	rest, ok := box[0].After(">")
	if !ok {
		return false
	}
	t := strings.TrimSpace(strings.ReplaceAll(rest.Plain(), "\u200b", ""))
	return t == "" || t == placeholder
}
