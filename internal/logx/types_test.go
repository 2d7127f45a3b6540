package logx

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every record's log_type is one of the named constants above: a type
// written inline elsewhere (a typo, a forgotten version) fails here.
func TestLogTypesAreNamed(t *testing.T) {
	inline := regexp.MustCompile(`"log_type",\s*"`)
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if loc := inline.FindIndex(b); loc != nil {
			line := 1 + strings.Count(string(b[:loc[0]]), "\n")
			t.Errorf("%s:%d: an inline log_type; name it in internal/logx (Type…)", p, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
