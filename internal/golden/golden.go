// Package golden compares a test's output with a file in testdata and, on a
// mismatch, says how they differ: it writes the output beside the golden as
// an .actual file (git-ignored) and prints a line diff, as templ's own
// htmldiff tests do, so a failure reads without leaving the test log.
package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check compares got with the file at path. With update set it rewrites the
// file instead (review the change by reading it). actual is where got is
// written on a mismatch; it is removed on a match.
func Check(t testing.TB, path, actual string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(actual)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it, then review it)", err)
	}
	if bytes.Equal(got, want) {
		_ = os.Remove(actual)
		return
	}
	if err := os.WriteFile(actual, got, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Errorf("%s differs from the golden (got written to %s; -update accepts it):\n%s",
		path, actual, Diff(string(want), string(got)))
}

// Diff is a line diff of want and got: "-" for lines only in want, "+" for
// lines only in got, with up to two lines of context around each change and
// "…" between the hunks. It is empty when they are equal.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// Longest common subsequence, by dynamic programming over the lines:
	// golden files are small.
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var ops []line
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, line{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, line{'-', a[i]})
			i++
		default:
			ops = append(ops, line{'+', b[j]})
			j++
		}
	}
	const context = 2
	keep := make([]bool, len(ops))
	for k, o := range ops {
		if o.op != ' ' {
			for c := max(0, k-context); c <= min(len(ops)-1, k+context); c++ {
				keep[c] = true
			}
		}
	}
	var out strings.Builder
	skipped := false
	for k, o := range ops {
		if !keep[k] {
			skipped = true
			continue
		}
		if skipped && out.Len() > 0 {
			out.WriteString("…\n")
		}
		skipped = false
		fmt.Fprintf(&out, "%c %s\n", o.op, o.text)
	}
	return out.String()
}
