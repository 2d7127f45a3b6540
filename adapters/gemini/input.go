package gemini

import (
	"strings"

	"github.com/notch-web/notch-web/internal/screen"
)

// placeholder is what Gemini CLI 0.61's empty input shows after its
// prompt (not dim: its own grey).
const placeholder = "Type your message or @path/to/file"

// EmptyInput reports whether Gemini CLI's input is empty on its screen
// (capture-pane -p -e): the input is the last line that starts with its
// prompt ">", holding nothing or only the placeholder, with a blank line
// under it (a draft of many lines goes on there). Shell mode ("!"), a
// dialog or a draft is not empty. Checked with Gemini CLI 0.61.0 in tmux
// (docs/terminal.md).
func EmptyInput(capture string) bool {
	lines := screen.Lines(capture)
	for i := len(lines) - 1; i >= 0; i-- {
		rest, ok := lines[i].After(">")
		if !ok {
			continue
		}
		t := strings.TrimSpace(rest.Plain())
		return (t == "" || t == placeholder) && (i+1 == len(lines) || lines[i+1].Blank())
	}
	return false
}
