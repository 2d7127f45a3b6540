package udiff

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    string
		want    []Line
		added   int
		removed int
	}{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", []Line{
			{Hunk, 0, 0, "@@ -1,3 +1,3 @@"}, {Kept, 1, 1, "a"}, {Removed, 2, 0, "b"}, {Added, 0, 2, "B"}, {Kept, 3, 3, "c"},
		}, 1, 1},
		{"a new file", "", "x\ny\n", []Line{{Hunk, 0, 0, "@@ -0,0 +1,2 @@"}, {Added, 0, 1, "x"}, {Added, 0, 2, "y"}}, 2, 0},
		{"equal", "same\n", "same\n", nil, 0, 0},
		{"CRLF both sides", "a\r\nb\r\n", "a\r\nc\r\n", []Line{
			{Hunk, 0, 0, "@@ -1,2 +1,2 @@"}, {Kept, 1, 1, "a"}, {Removed, 2, 0, "b"}, {Added, 0, 2, "c"},
		}, 1, 1},
		{"a line end changed to CRLF shows the CR", "a\n", "a\r\n", []Line{
			{Hunk, 0, 0, "@@ -1 +1 @@"}, {Removed, 1, 0, "a"}, {Added, 0, 1, `a\r`},
		}, 1, 1},
		{"bidi and control characters shown as escapes, the tab kept", "x\n", "\u202eevil\x1b[2J\tok\n", []Line{
			{Hunk, 0, 0, "@@ -1 +1 @@"}, {Removed, 1, 0, "x"}, {Added, 0, 1, `\u202eevil\x1b[2J` + "\tok"},
		}, 1, 1},
		{"invalid UTF-8 as its bytes", "a\n", "\xff\xfe\n", []Line{
			{Hunk, 0, 0, "@@ -1 +1 @@"}, {Removed, 1, 0, "a"}, {Added, 0, 1, `\xff\xfe`},
		}, 1, 1},
		{"markup is text", "", "<script>alert(1)</script>\n", []Line{
			{Hunk, 0, 0, "@@ -0,0 +1 @@"}, {Added, 0, 1, "<script>alert(1)</script>"},
		}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Build(tc.a, tc.b, Limits{})
			if len(v.Lines) != len(tc.want) {
				t.Fatalf("lines %+v, want %+v", v.Lines, tc.want)
			}
			for i := range tc.want {
				if v.Lines[i] != tc.want[i] {
					t.Errorf("line %d = %+v, want %+v", i, v.Lines[i], tc.want[i])
				}
			}
			if v.Added != tc.added || v.Removed != tc.removed {
				t.Errorf("+%d −%d, want +%d −%d", v.Added, v.Removed, tc.added, tc.removed)
			}
		})
	}
}

func TestBuildBinary(t *testing.T) {
	v := Build("text\n", "PNG\x00\x01\x02", CardLimits)
	if !v.Binary || len(v.Lines) != 0 {
		t.Fatalf("a NUL byte: %+v, want binary with no lines", v)
	}
}

// TestBuildBounded: a huge file's diff stays within the limits, counts
// what it left out, and never skips a line in the middle.
func TestBuildBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 100_000 {
		a.WriteString("line ")
		a.WriteString(strings.Repeat("x", i%50))
		a.WriteString("\n")
		if i%7 == 0 {
			b.WriteString("changed\n")
		} else {
			b.WriteString("line " + strings.Repeat("x", i%50) + "\n")
		}
	}
	b.WriteString(strings.Repeat("y", 100_000) + "\n") // one long line
	v := Build(a.String(), b.String(), CardLimits)
	if len(v.Lines) > CardLimits.Lines {
		t.Errorf("%d lines shown, limit %d", len(v.Lines), CardLimits.Lines)
	}
	n := 0
	for _, l := range v.Lines {
		n += len(l.Text)
	}
	if n > CardLimits.Bytes {
		t.Errorf("%d bytes shown, limit %d", n, CardLimits.Bytes)
	}
	// Past maxEdits the middle is removed and added whole: still true.
	if v.More == 0 || v.Added-v.Removed != 1 || v.Added < 100_000/7+2 {
		t.Errorf("more %d, +%d −%d", v.More, v.Added, v.Removed)
	}
	if got := Build("", strings.Repeat("y", 100_000), CardLimits).Lines[1].Text; len(got) > CardLimits.LineBytes+len("…") {
		t.Errorf("a long line is %d bytes shown, limit %d", len(got), CardLimits.LineBytes)
	}
}

// TestBuildUnrelated: two texts with nothing in common past maxEdits are
// all removed and all added, still correct.
func TestBuildUnrelated(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("a" + strconv.Itoa(i) + "\n")
		b.WriteString("b" + strconv.Itoa(i) + "\n")
	}
	v := Build(a.String(), b.String(), Limits{})
	if v.Added != 3000 || v.Removed != 3000 {
		t.Fatalf("+%d −%d, want +3000 −3000", v.Added, v.Removed)
	}
	checkView(t, a.String(), b.String(), v)
}

// checkView asserts what any View built without limits must hold: each
// line's text is its side's line as shown, numbers run on without gaps
// between hunks' runs, the counts agree, and nothing hidden is left.
func checkView(t *testing.T, a, b string, v View) {
	t.Helper()
	if v.Binary {
		return
	}
	al, bl := split(a), split(b)
	lastOld, lastNew, added, removed := 0, 0, 0, 0
	for _, l := range v.Lines {
		if l.Op != Hunk && (!utf8.ValidString(l.Text) || textrule.Has(strings.ReplaceAll(l.Text, "\t", " "))) {
			t.Fatalf("line %q holds a hidden character", l.Text)
		}
		switch l.Op {
		case Kept:
			if l.Old <= lastOld || l.New <= lastNew || l.Text != Shown(al[l.Old-1], v.CRLF, 0) || al[l.Old-1] != bl[l.New-1] {
				t.Fatalf("kept line %+v (after %d, %d)", l, lastOld, lastNew)
			}
			lastOld, lastNew = l.Old, l.New
		case Removed:
			removed++
			if l.Old <= lastOld || l.Text != Shown(al[l.Old-1], v.CRLF, 0) {
				t.Fatalf("removed line %+v (after %d)", l, lastOld)
			}
			lastOld = l.Old
		case Added:
			added++
			if l.New <= lastNew || l.Text != Shown(bl[l.New-1], v.CRLF, 0) {
				t.Fatalf("added line %+v (after %d)", l, lastNew)
			}
			lastNew = l.New
		}
	}
	if added != v.Added || removed != v.Removed || added-removed != len(bl)-len(al) {
		t.Fatalf("+%d −%d counted, view says +%d −%d, sides %d → %d lines", added, removed, v.Added, v.Removed, len(al), len(bl))
	}
	if a != b && len(v.Lines) == 0 {
		t.Fatalf("%q → %q: no lines", a, b)
	}
}

// FuzzBuild: any two texts give a view that says what changed, within its
// limits, with nothing hidden shown as itself.
func FuzzBuild(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")       // one line changed
	f.Add("", "new\nfile")                // a new file, no last newline
	f.Add("a\r\nb\r\n", "a\r\nc\r\n")     // CRLF
	f.Add("x\n", "\u202eevil\x1b[2J\n")   // bidi and escape sequences
	f.Add("\xff\xfe\n", "ok\n")           // invalid UTF-8
	f.Add("PNG\x00\x01", "PNG\x00\x02")   // binary
	f.Add("1\n1\n1\n2\n", "2\n1\n1\n1\n") // repeats
	f.Add("a\rb\n", "a\rb\r\n")           // a lone CR
	f.Fuzz(func(t *testing.T, a, b string) {
		checkView(t, a, b, Build(a, b, Limits{}))
		v := Build(a, b, CardLimits)
		n := 0
		for _, l := range v.Lines {
			n += len(l.Text)
		}
		if len(v.Lines) > CardLimits.Lines || n > CardLimits.Bytes {
			t.Fatalf("%d lines, %d bytes: over the limits", len(v.Lines), n)
		}
	})
}
