package install

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrTOMLLayout is a config.toml whose notify notch-web will not edit as
// text: it cannot be read with confidence, or its notify is someone
// else's, or not one line. Install then writes nothing there and hands back
// the exact line and where it goes.
var ErrTOMLLayout = errors.New("config.toml left as it is")

// tomlLine is one line of a config.toml as notch-web reads it: enough TOML
// to know which lines are table headers and top-level keys, without a TOML
// library, so that an edit can be one line inserted, replaced or removed.
type tomlLine struct {
	start, end int    // the line's bytes, without its line break
	structural bool   // it starts outside any string or array
	header     string // for a [table] or [[table]] header: its name
	key        string // for a key/value line: its key as written (dotted keys kept whole)
	table      string // the table it is in ("" at the top level)
}

// scanTOML cuts src into lines and follows strings (basic, literal and
// their multi-line forms), comments and bracket depth across them. A file
// that ends inside a string or a bracket is not one it can read.
func scanTOML(src string) ([]tomlLine, error) {
	if strings.Contains(strings.ReplaceAll(src, "\r\n", "\n"), "\r") {
		return nil, fmt.Errorf("%w: a carriage return without a line feed", ErrTOMLLayout)
	}
	var lines []tomlLine
	const (
		plain = iota
		basic
		literal
		mlBasic
		mlLiteral
	)
	state, depth := plain, 0
	table := ""
	for lineStart := 0; lineStart <= len(src); {
		end := strings.IndexByte(src[lineStart:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += lineStart
		}
		text := strings.TrimSuffix(src[lineStart:end], "\r")
		ln := tomlLine{start: lineStart, end: lineStart + len(text), structural: state == plain && depth == 0, table: table}
		if ln.structural {
			t := strings.TrimSpace(text)
			switch {
			case strings.HasPrefix(t, "["):
				name := strings.TrimSpace(strings.Trim(strings.SplitN(t, "#", 2)[0], " \t"))
				name = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(name, "["), "["), "]"), "]"))
				ln.header, table = name, name
				ln.table = name
			case t != "" && !strings.HasPrefix(t, "#"):
				if k, _, ok := strings.Cut(t, "="); ok {
					ln.key = strings.TrimSpace(k)
				}
			}
		}
		// Follow the line's characters for the state the next line starts in.
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch state {
			case basic:
				if c == '\\' {
					i++
				} else if c == '"' {
					state = plain
				}
			case literal:
				if c == '\'' {
					state = plain
				}
			case mlBasic:
				if c == '\\' {
					i++
				} else if strings.HasPrefix(text[i:], `"""`) {
					state, i = plain, i+2
				}
			case mlLiteral:
				if strings.HasPrefix(text[i:], "'''") {
					state, i = plain, i+2
				}
			default:
				switch {
				case c == '#':
					i = len(text)
				case strings.HasPrefix(text[i:], `"""`):
					state, i = mlBasic, i+2
				case strings.HasPrefix(text[i:], "'''"):
					state, i = mlLiteral, i+2
				case c == '"':
					state = basic
				case c == '\'':
					state = literal
				case c == '[' || c == '{':
					if !(ln.header != "" && depth == 0) {
						depth++
					}
				case c == ']' || c == '}':
					if !(ln.header != "" && depth == 0) {
						depth--
					}
				}
			}
		}
		if state == basic || state == literal {
			return nil, fmt.Errorf("%w: line %d ends inside a string", ErrTOMLLayout, len(lines)+1)
		}
		if depth < 0 {
			return nil, fmt.Errorf("%w: line %d closes a bracket it did not open", ErrTOMLLayout, len(lines)+1)
		}
		lines = append(lines, ln)
		if end == len(src) {
			break
		}
		lineStart = end + 1
	}
	if state != plain || depth != 0 {
		return nil, fmt.Errorf("%w: the file ends inside a string or a bracket", ErrTOMLLayout)
	}
	return lines, nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlArray is a one-line TOML array of strings.
func tomlArray(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// parseTOMLStrings reads a one-line value that is an array of strings
// (basic or literal), followed by nothing but an optional comment. ok is
// false for anything else.
func parseTOMLStrings(v string) (out []string, ok bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "[") {
		return nil, false
	}
	i := 1
	skip := func() {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
	}
	for {
		skip()
		if i < len(v) && v[i] == ']' {
			i++
			break
		}
		if i >= len(v) {
			return nil, false
		}
		switch v[i] {
		case '\'':
			end := strings.IndexByte(v[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			out = append(out, v[i+1:i+1+end])
			i += end + 2
		case '"':
			j := i + 1
			for j < len(v) && v[j] != '"' {
				if v[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(v) {
				return nil, false
			}
			s, err := strconv.Unquote(v[i : j+1])
			if err != nil {
				return nil, false
			}
			out = append(out, s)
			i = j + 1
		default:
			return nil, false
		}
		skip()
		if i < len(v) && v[i] == ',' {
			i++
			continue
		}
		skip()
		if i < len(v) && v[i] == ']' {
			i++
			break
		}
		return nil, false
	}
	rest := strings.TrimSpace(v[i:])
	return out, rest == "" || strings.HasPrefix(rest, "#")
}

// notifyState is what a config.toml says about Codex's notify.
type notifyState struct {
	lines   []tomlLine
	line    int      // the notify line's index (-1: none)
	argv    []string // its program and arguments, when it is a one-line array of strings
	oneLine bool
	lastKey int // the last top-level key line before the first table (-1: none)
	// disabled names the [features] key that turns Codex's hooks off, if any.
	disabled string
}

func readNotify(src string) (notifyState, error) {
	lines, err := scanTOML(src)
	if err != nil {
		return notifyState{}, err
	}
	st := notifyState{lines: lines, line: -1, lastKey: -1}
	for i, ln := range lines {
		if ln.key == "" || !ln.structural {
			continue
		}
		key := strings.Trim(ln.key, `"'`)
		if ln.table == "" {
			st.lastKey = i
			if key == "notify" {
				st.line = i
				_, value, _ := strings.Cut(src[ln.start:ln.end], "=")
				st.argv, st.oneLine = parseTOMLStrings(value)
			}
		}
		value := ""
		if _, v, ok := strings.Cut(src[ln.start:ln.end], "="); ok {
			value = strings.TrimSpace(strings.SplitN(v, "#", 2)[0])
		}
		if value == "false" && ((ln.table == "features" && (key == "hooks" || key == "codex_hooks")) ||
			(ln.table == "" && (key == "features.hooks" || key == "features.codex_hooks"))) {
			st.disabled = "[features] " + strings.TrimPrefix(key, "features.") + " = false"
		}
	}
	// A top-level key's value may run over several lines (an array): the
	// insertion point is after its last line.
	if st.lastKey >= 0 {
		for st.lastKey+1 < len(lines) && !lines[st.lastKey+1].structural {
			st.lastKey++
		}
	}
	return st, nil
}

// setNotify returns src with notify = argv at the top level: a line
// inserted after the last top-level key (or at the very top), or our own
// one-line notify replaced. Someone else's notify, or one notch-web cannot
// read as one line, is ErrTOMLLayout: src is not to be written.
func setNotify(src string, argv []string) (string, error) {
	st, err := readNotify(src)
	if err != nil {
		return "", err
	}
	want := "notify = " + tomlArray(argv)
	nl := "\n"
	if strings.Contains(src, "\r\n") {
		nl = "\r\n"
	}
	if st.line >= 0 {
		ln := st.lines[st.line]
		switch {
		case !st.oneLine:
			return "", fmt.Errorf("%w: its notify (line %d) is not a one-line list of strings", ErrTOMLLayout, st.line+1)
		case !isOurNotify(st.argv):
			return "", fmt.Errorf("%w: notify already runs %s (Codex runs one notify program)", ErrTOMLLayout, strings.Join(st.argv, " "))
		case slices.Equal(st.argv, argv):
			return src, nil
		}
		indent := src[ln.start : ln.start+len(src[ln.start:ln.end])-len(strings.TrimLeft(src[ln.start:ln.end], " \t"))]
		comment := ""
		if _, v, _ := strings.Cut(src[ln.start:ln.end], "="); strings.Contains(v, "#") {
			if i := strings.LastIndex(v, "]"); i >= 0 {
				comment = v[i+1:]
			}
		}
		return src[:ln.start] + indent + want + comment + src[ln.end:], nil
	}
	if st.lastKey < 0 {
		return want + nl + src, nil
	}
	ln := st.lines[st.lastKey]
	if ln.end == len(src) { // the last line, without a line break: so is ours
		return src + nl + want, nil
	}
	at := ln.end + len(nl)
	if src[ln.end] == '\n' {
		at = ln.end + 1
	}
	return src[:at] + want + nl + src[at:], nil
}

// removeNotify returns src without our one-line notify (src itself when
// there is none). A notify that is someone else's stays.
func removeNotify(src string) (string, error) {
	st, err := readNotify(src)
	if err != nil {
		return "", err
	}
	if st.line < 0 || !st.oneLine || !isOurNotify(st.argv) {
		return src, nil
	}
	ln := st.lines[st.line]
	start, end := ln.start, ln.end
	switch {
	case strings.HasPrefix(src[end:], "\r\n"):
		end += 2
	case strings.HasPrefix(src[end:], "\n"):
		end++
	case start > 0: // the last line, without a line break: the one before goes
		start--
		if start > 0 && src[start-1] == '\r' {
			start--
		}
	}
	return src[:start] + src[end:], nil
}
