// Package screen reads a terminal's screen as tmux's capture-pane -p -e
// gives it: lines of text with SGR escapes (colours, bold, dim) and no
// cursor moves. The board's Reply reads an agent's input box with it
// (agent.Spec.EmptyInput): typed text and a TUI's placeholder differ only
// in how they are drawn (a placeholder is dim), which Line keeps.
package screen

import (
	"strconv"
	"strings"
)

// Line is one line of the screen: its text, and for each of its bytes
// whether it is drawn dim (SGR 2, a placeholder's look).
type Line struct {
	Text string
	dim  []bool
}

// Lines splits a capture into lines, their escapes read and dropped.
func Lines(capture string) []Line {
	raw := strings.Split(strings.TrimRight(capture, "\n"), "\n")
	out := make([]Line, len(raw))
	dim := false // SGR state carries over lines as tmux writes them
	for i, r := range raw {
		out[i], dim = parse(r, dim)
	}
	return out
}

// parse reads one line from the dim state at its start; it returns the
// line and the state at its end. An escape that is not SGR is dropped
// whole (CSI, OSC up to BEL or ST, a lone ESC and the byte after it); any
// other control character is dropped.
func parse(s string, dim bool) (Line, bool) {
	var text strings.Builder
	var mask []bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				dim = sgr(s[i+2:j], dim)
			}
			i = j
		case c == 0x1b && i+1 < len(s) && s[i+1] == ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		case c == 0x1b:
			i++
		case c < 0x20 || c == 0x7f:
		default:
			text.WriteByte(c)
			mask = append(mask, dim)
		}
	}
	return Line{Text: text.String(), dim: mask}, dim
}

// sgr applies one SGR's parameters to the dim state: 2 sets it, 0 (or
// none) and 22 clear it; a colour's own numbers (38;5;N, 38;2;R;G;B, and
// 48 and 58 alike) are skipped, never read as attributes.
func sgr(params string, dim bool) bool {
	if params == "" {
		return false
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	for k := 0; k < len(ps); k++ {
		n, err := strconv.Atoi(ps[k])
		if err != nil {
			continue
		}
		switch n {
		case 0, 22:
			dim = false
		case 2:
			dim = true
		case 38, 48, 58:
			if k+1 < len(ps) && ps[k+1] == "5" {
				k += 2
			} else if k+1 < len(ps) && ps[k+1] == "2" {
				k += 4
			}
		}
	}
	return dim
}

// Plain is the line's text with what is drawn dim left out: what was
// typed, not a placeholder.
func (l Line) Plain() string {
	var b strings.Builder
	for i := 0; i < len(l.Text); i++ {
		if i < len(l.dim) && !l.dim[i] {
			b.WriteByte(l.Text[i])
		}
	}
	return b.String()
}

// Blank reports whether the line holds nothing but white space that is
// not dim.
func (l Line) Blank() bool { return strings.TrimSpace(l.Plain()) == "" }

// After is the part of the line after the first prefix (its text),
// with its dim marks; ok is false when the line does not start with
// prefix once its leading spaces are dropped.
func (l Line) After(prefix string) (Line, bool) {
	lead := len(l.Text) - len(strings.TrimLeft(l.Text, " "))
	if !strings.HasPrefix(l.Text[lead:], prefix) {
		return Line{}, false
	}
	at := lead + len(prefix)
	return Line{Text: l.Text[at:], dim: l.dim[min(at, len(l.dim)):]}, true
}

// Boxed is the lines between a screen's last two rules (lines of "─"
// alone): where Claude Code, Copilot CLI and Qwen Code draw their input.
// ok is false when the screen has fewer than two rules (a dialog, a menu:
// no input box).
func Boxed(lines []Line) (box []Line, ok bool) {
	var rules []int
	for i, l := range lines {
		if t := strings.TrimSpace(l.Text); t != "" && strings.Trim(t, "─") == "" {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return nil, false
	}
	return lines[rules[len(rules)-2]+1 : rules[len(rules)-1]], true
}
