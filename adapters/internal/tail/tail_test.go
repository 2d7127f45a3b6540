package tail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func collect(path string, lim Limits) ([]string, bool) {
	var got []string
	ok := Lines(path, lim, func(l []byte) bool { got = append(got, string(l)); return true })
	return got, ok
}

func TestLines(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // longer than a chunk and than MaxLine below
	lim := Limits{MaxLines: 100, MaxBytes: 8 << 20, MaxLine: 100 << 10}
	tests := []struct {
		name string
		file string
		lim  Limits
		want []string
	}{
		{name: "lines, last first", file: "a\nb\nc\n", lim: lim, want: []string{"c", "b", "a"}},
		{name: "no final newline", file: "a\nb", lim: lim, want: []string{"b", "a"}},
		{name: "CRLF and blank lines", file: "a\r\n\r\n\nb\r\n", lim: lim, want: []string{"b", "a"}},
		// One long line (Claude Code's prompt_snapshot) never hides the
		// lines before it.
		{name: "a long line is passed over", file: "usage\n" + big + "\nlast\n", lim: lim, want: []string{"last", "usage"}},
		{name: "a long first line", file: big + "\nlast\n", lim: lim, want: []string{"last"}},
		{name: "lines across chunks", file: "first\n" + strings.Repeat("y", chunk-3) + "\nend\n", lim: lim,
			want: []string{"end", strings.Repeat("y", chunk-3), "first"}},
		{name: "bounded by lines", file: "a\nb\nc\nd\n", lim: Limits{MaxLines: 2, MaxBytes: 1 << 20, MaxLine: 1 << 10}, want: []string{"d", "c"}},
		{name: "a passed-over line counts", file: "a\n" + big + "\nc\n", lim: Limits{MaxLines: 2, MaxBytes: 1 << 20, MaxLine: 1 << 10}, want: []string{"c"}},
		// The window starts at a line ("b" follows a newline): it is whole.
		{name: "bounded by bytes", file: "a\nb\nc\n", lim: Limits{MaxLines: 10, MaxBytes: 4, MaxLine: 10}, want: []string{"c", "b"}},
		// The line the window starts in is cut: it is not given.
		{name: "a cut line is not given", file: "aa\nbb\ncc\n", lim: Limits{MaxLines: 10, MaxBytes: 5, MaxLine: 10}, want: []string{"cc"}},
		{name: "empty", file: "", lim: lim},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := collect(write(t, tt.file), tt.lim)
			if !ok || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Lines = %d lines %.60q (ok %v), want %.60q", len(got), got, ok, tt.want)
			}
		})
	}
}

func TestLinesStops(t *testing.T) {
	p := write(t, "a\nb\nc\n")
	var got []string
	Lines(p, DefaultLimits, func(l []byte) bool { got = append(got, string(l)); return len(got) < 2 })
	if strings.Join(got, "") != "cb" {
		t.Errorf("got %q", got)
	}
}

func TestLinesRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"relative.jsonl", filepath.Join(dir, "t.json"), filepath.Join(dir, "missing.jsonl"), dir + "/d.jsonl"} {
		if p == dir+"/d.jsonl" {
			os.Mkdir(p, 0o755)
		}
		if _, ok := collect(p, DefaultLimits); ok {
			t.Errorf("Lines(%q) read something", p)
		}
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\nc\n", 2)             // plain lines
	f.Add("a\r\n\r\nlong-line\nz", 4) // CRLF, blank, no final newline
	f.Fuzz(func(t *testing.T, s string, maxLine int) {
		maxLine = 1 + abs(maxLine)%64
		p := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(p, []byte(s), 0o644)
		var got []string
		Lines(p, Limits{MaxLines: 1000, MaxBytes: 1 << 20, MaxLine: maxLine}, func(l []byte) bool {
			got = append(got, string(l))
			return true
		})
		// What it yields are the file's short non-blank lines, last first.
		var want []string
		parts := strings.Split(s, "\n")
		for i := len(parts) - 1; i >= 0; i-- {
			l := strings.TrimSuffix(parts[i], "\r")
			if len(parts[i]) <= maxLine && l != "" {
				want = append(want, l)
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("Lines(%q, maxLine %d) = %q, want %q", s, maxLine, got, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
