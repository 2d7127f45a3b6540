package opencode

import (
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/screen"
)

// placeholders start what an empty input shows before a session's first
// prompt (an example question follows it): OpenCode 1.18's, and Kilo Code
// CLI 7.7.7's, which spells the ellipsis with three dots (adapters/kilo
// reads its input with this rule).
var placeholders = []string{"Ask anything…", "Ask anything..."}

// placeheld reports whether t starts with a placeholder.
func placeheld(t string) bool {
	for _, p := range placeholders {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// EmptyInput reports whether OpenCode's input is empty on its screen
// (capture-pane -p -e). Its input is a box drawn with a left bar: lines
// that hold "┃" at one column, closed by a line "╹▀▀…▀" at that column;
// the box's last "┃" line names the agent and model ("Build · …"), the
// ones above it are what is typed. Only the box's own columns are read (a
// sidebar shares its lines). Empty: those lines are blank, or the first
// holds the placeholder and the others are blank. A draft, or a screen
// without the box (a dialog, a menu) is not empty. Checked with OpenCode
// 1.18.33 in tmux (docs/terminal.md; testdata/screens).
func EmptyInput(capture string) bool {
	lines := screen.Lines(capture)
	for i := len(lines) - 1; i >= 0; i-- {
		text := lines[i].Text
		at := strings.Index(text, "╹▀")
		if at < 0 {
			continue
		}
		col := utf8.RuneCountInString(text[:at])
		bar := text[at+len("╹"):]
		width := utf8.RuneCountInString(bar) - utf8.RuneCountInString(strings.TrimLeft(bar, "▀"))
		var typed []string
		for j := i - 1; j >= 0; j-- {
			r := []rune(lines[j].Text)
			if len(r) <= col || r[col] != '┃' {
				break
			}
			inside := r[col+1 : min(len(r), col+1+width)]
			typed = append([]string{strings.TrimSpace(string(inside))}, typed...)
		}
		if len(typed) < 2 {
			return false // no box, or only its model line
		}
		typed = typed[:len(typed)-1] // the model line
		for k, t := range typed {
			if t != "" && !(k == firstNonBlank(typed) && placeheld(t)) {
				return false
			}
		}
		return true
	}
	return false
}

// firstNonBlank is the index of the first non-blank line, or -1.
func firstNonBlank(lines []string) int {
	for i, l := range lines {
		if l != "" {
			return i
		}
	}
	return -1
}
