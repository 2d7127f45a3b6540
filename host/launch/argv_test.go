package launch

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/argv.golden")

// TestArgvGolden: the command line of every agent the board starts, for a
// new session with and without a prompt, a prompt that would be an option
// or a shell's work if anything read it so, and a resume — one argv
// element per prompt, always.
func TestArgvGolden(t *testing.T) {
	cases := []struct{ name, prompt, resume string }{
		{"new", "", ""},
		{"prompt", "fix the failing tests", ""},
		{"hostile prompt", "-rf; $(id) `x` \"q\" 'q'\nsecond line;", ""},
		{"resume", "", "0b6c5f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"},
		{"resume with a prompt", "go on", "0b6c5f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"},
	}
	var b strings.Builder
	for _, s := range registry.All {
		if s.Launch == nil {
			continue
		}
		fmt.Fprintf(&b, "# %s\n", s.Display)
		for _, c := range cases {
			argv, err := Argv(s, Agent{}, c.prompt, c.resume)
			if errors.Is(err, ErrResume) {
				fmt.Fprintf(&b, "%-22s refused: %v\n", c.name, err)
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", s.Name, c.name, err)
			}
			if c.prompt != "" && !has(argv, c.prompt) {
				t.Errorf("%s %s: the prompt is not one argument of %q", s.Name, c.name, argv)
			}
			j, _ := json.Marshal(argv)
			fmt.Fprintf(&b, "%-22s %s", c.name, j)
			b.WriteString("\n")
		}
	}
	// The launch file's own argv replaces the program and fixed flags.
	argv, _ := Argv(registry.All[0], Agent{Argv: []string{"/opt/claude", "--model", "opus"}}, "hi", "")
	j, _ := json.Marshal(argv)
	fmt.Fprintf(&b, "# the file's argv\n%s\n", j)
	golden.Check(t, filepath.Join("testdata", "argv.golden"), filepath.Join("testdata", "argv.actual"), []byte(b.String()), *update)
}

// has reports whether the prompt is in argv whole: one element, or one
// "--name=prompt" element.
func has(argv []string, prompt string) bool {
	for _, a := range argv {
		if a == prompt || strings.HasSuffix(a, "="+prompt) && strings.HasPrefix(a, "--") {
			return true
		}
	}
	return false
}
