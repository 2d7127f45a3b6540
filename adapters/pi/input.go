package pi

import (
	"strings"

	"github.com/notch-web/notch-web/internal/screen"
)

// minRule is how many of its "─" make a line one of the rules Pi draws
// above and below its input.
const minRule = 8

// EmptyInput reports whether Pi's input is empty on its screen
// (capture-pane -p -e): the input is what lies between the last two
// rules (lines of "─" only) on the screen, empty when every line there is
// blank (the cursor, a reversed space, is blank). A draft, of one line or
// many, is not; nor is a screen with no such rules. Checked with Pi
// 0.73.1 in tmux (testdata/screens).
func EmptyInput(capture string) bool {
	lines := screen.Lines(capture)
	below := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if !rule(lines[i].Plain()) {
			continue
		}
		if below < 0 {
			below = i
			continue
		}
		for _, l := range lines[i+1 : below] {
			if !l.Blank() {
				return false
			}
		}
		return true
	}
	return false
}

// rule reports whether a line is one of Pi's rules.
func rule(s string) bool {
	s = strings.TrimSpace(s)
	return strings.Count(s, "─") >= minRule && strings.Trim(s, "─") == ""
}
