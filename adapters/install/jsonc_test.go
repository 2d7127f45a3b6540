package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSONC(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		err       string // "" when it parses
	}{
		{"object", `{"a": [1, 2.5e3, -0, true, false, null, "x\u00e9\ud83d\ude00"]}`, ""},
		{"comments", "// head\n{\n  /* inline */ \"a\": 1, // tail\n  \"b\": /* x */ 2\n}\n// end", ""},
		{"BOM", "\xef\xbb\xbf{}", ""},
		{"trailing comma", `{"a": 1,}`, "line 1, column 9: expected a \"key\""},
		{"unterminated comment", "{} /* x", "line 1, column 4: unterminated /* comment"},
		{"single quotes", `{'a': 1}`, "line 1, column 2: expected a \"key\""},
		{"two values", `{} {}`, "line 1, column 4: unexpected text after the top-level value"},
		{"leading zero", `[01]`, "line 1, column 3: expected ',' or ']' in an array"},
		{"control in string", "[\"a\tb\"]", "line 1, column 4: a control character in a string"},
		{"bad escape", `["\x"]`, `line 1, column 3: a bad escape \x`},
		{"not UTF-8", "{\"a\": \"\xff\"}", "line 1, column 8: the file is not UTF-8"},
		{"missing colon", "{\n  \"a\" 1\n}", "line 2, column 7: expected ':' after a key"},
		{"empty", ``, "line 1, column 1: unexpected end of file"},
		{"too deep", strings.Repeat("[", 600) + strings.Repeat("]", 600), "nested too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseJSONC([]byte(tc.src))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("parseJSONC: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want ErrSyntax with %q", err, tc.err)
			}
		})
	}
}

// FuzzParseJSONC: a settings file is outside input. The parser never
// panics; on text without comments or a BOM it accepts exactly what
// encoding/json accepts, decodes the same values, and its spans hold each
// value's text.
func FuzzParseJSONC(f *testing.F) {
	for _, seed := range []string{
		// A Claude Code settings file with user hooks.
		`{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"~/bin/guard"}]}]}}`,
		// Gemini CLI's, with comments.
		"{\n  // mine\n  \"hooks\": {\"BeforeTool\": []}, /* x */ \"ui\": {\"theme\": \"dark\"}\n}",
		// Escapes, surrogates, numbers, literals.
		`["\ud83d\ude00", "\ud800", "\u00e9\n\"", -1.5e-3, 0, true, false, null, {}, []]`,
		// Refusals.
		`{"a":1,}`, `[1 2]`, `{"a"}`, "\"\xff\"", `01`, `1.`, `-`, `{"a":"\x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		n, err := parseJSONC(src)
		// Comments and a BOM are ours to accept; text that is not UTF-8
		// ours to refuse (encoding/json would read U+FFFD into the file).
		if bytes.ContainsAny(src, "/") || bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) || !utf8.Valid(src) {
			return
		}
		if (err == nil) != json.Valid(src) {
			t.Fatalf("parseJSONC error %v, json.Valid %v", err, json.Valid(src))
		}
		if err != nil {
			return
		}
		// encoding/json refuses a number beyond float64's range that
		// json.Valid accepts: then there is no value to compare.
		var want any
		if err := json.Unmarshal(src, &want); err == nil {
			if got := n.value(); !reflect.DeepEqual(got, want) {
				t.Fatalf("value %#v, encoding/json %#v", got, want)
			}
		}
		var check func(n *node)
		check = func(n *node) {
			if !json.Valid(src[n.start:n.end]) {
				t.Fatalf("span %d:%d is not the value: %q", n.start, n.end, src[n.start:n.end])
			}
			for _, m := range n.members {
				check(m.val)
			}
			for _, e := range n.elems {
				check(e)
			}
		}
		check(n)
	})
}
