// Package golden compares a test's output with a file in testdata and, on a
// mismatch, says how they differ: it writes the output beside the golden as
// an .actual file (git-ignored) and prints a unified diff (internal/udiff),
// as templ's own htmldiff tests do, so a failure reads without leaving the
// test log.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/internal/udiff"
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
		path, actual, udiff.Unified(path, actual, string(want), string(got), 3))
}
