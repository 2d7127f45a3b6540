package udiff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"insert into empty", "", "x\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n"},
		{"delete all", "x\ny\n", "", "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"change in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"append at the end", "1\n2\n", "1\n2\n3\n", "--- a\n+++ b\n@@ -1,2 +1,3 @@\n 1\n 2\n+3\n"},
		{"no newline at the end", "a\nb", "a\nc", "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"two hunks", strings.Repeat("x\n", 3) + "A\n" + strings.Repeat("y\n", 10) + "B\n",
			strings.Repeat("x\n", 3) + "a\n" + strings.Repeat("y\n", 10) + "b\n",
			"--- a\n+++ b\n@@ -1,7 +1,7 @@\n x\n x\n x\n-A\n+a\n y\n y\n y\n@@ -12,4 +12,4 @@\n y\n y\n y\n-B\n+b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified("a", "b", tc.a, tc.b, 3); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestUnifiedApplies checks the edit script on texts the table does not
// spell out: applying the diff's kept and added lines gives b, its kept and
// deleted lines give a.
func TestUnifiedApplies(t *testing.T) {
	pairs := [][2]string{
		{"a\nb\nc\nd\ne\n", "b\nc\nx\ne\nf\n"},
		{"{\n  \"a\": 1\n}\n", "{\n  \"a\": 1,\n  \"hooks\": {}\n}\n"},
		{"1\n1\n1\n2\n", "2\n1\n1\n1\n"},
	}
	for _, p := range pairs {
		ops := script(split(p[0]), split(p[1]))
		var a, b strings.Builder
		al, bl := split(p[0]), split(p[1])
		for _, o := range ops {
			switch o.kind {
			case ' ':
				a.WriteString(al[o.a])
				b.WriteString(bl[o.b])
			case '-':
				a.WriteString(al[o.a])
			case '+':
				b.WriteString(bl[o.b])
			}
		}
		if a.String() != p[0] || b.String() != p[1] {
			t.Errorf("script for %q → %q rebuilds %q → %q", p[0], p[1], a.String(), b.String())
		}
	}
}
