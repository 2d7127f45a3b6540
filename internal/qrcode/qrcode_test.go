package qrcode

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

const link = "https://machine.tailnet-1234.ts.net/agents-notch/pair/pr863juljMTWfL3WEbyhTg"

// Both drawings show exactly the code's dark modules, in place.
func TestDrawingsAreTheCode(t *testing.T) {
	c, err := Encode(link)
	if err != nil {
		t.Fatal(err)
	}
	n := c.Size()
	// The terminal: two modules a character, every line n columns.
	lines := strings.Split(strings.TrimSuffix(c.Terminal(false), "\n"), "\n")
	if len(lines) != (n+1)/2 {
		t.Fatalf("%d lines for %d modules", len(lines), n)
	}
	if n > 80 {
		t.Errorf("a link of %d characters is %d columns: wider than 80", len(link), n)
	}
	for y, l := range lines {
		if utf8.RuneCountInString(l) != n {
			t.Fatalf("line %d is %d columns, want %d", y, utf8.RuneCountInString(l), n)
		}
		for x, r := range []rune(l) {
			top, bottom := c.dark(x, 2*y), c.dark(x, 2*y+1)
			want := map[[2]bool]rune{{true, true}: '█', {true, false}: '▀', {false, true}: '▄', {false, false}: ' '}[[2]bool{top, bottom}]
			if r != want {
				t.Fatalf("(%d, %d): %q, want %q", x, y, r, want)
			}
		}
	}
	if col := c.Terminal(true); !strings.HasPrefix(col, "\x1b[30;107m") || !strings.Contains(col, "\x1b[0m\n") {
		t.Errorf("in colour the code is not drawn black on white")
	}
	// The SVG: its rectangles cover the dark modules and nothing else.
	dark := map[[2]int]bool{}
	re := regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)
	path := c.SVGPath()
	if re.ReplaceAllString(path, "") != "" {
		t.Fatalf("the path has other commands: %.80s", re.ReplaceAllString(path, ""))
	}
	for _, m := range re.FindAllStringSubmatch(path, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		w, _ := strconv.Atoi(m[3])
		for i := range w {
			dark[[2]int{x + i, y}] = true
		}
	}
	for y := range n {
		for x := range n {
			if dark[[2]int{x, y}] != c.dark(x, y) {
				t.Fatalf("module (%d, %d): drawn %v, is %v", x, y, dark[[2]int{x, y}], c.dark(x, y))
			}
		}
	}
	// The quiet margin.
	for i := range n {
		if c.dark(i, 0) || c.dark(0, i) || c.dark(i, n-1) || c.dark(n-1, i) {
			t.Fatal("a dark module in the quiet margin")
		}
	}
}
