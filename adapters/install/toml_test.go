package install

import (
	"errors"
	"slices"
	"testing"
)

// FuzzSetNotify: config.toml is outside input. setNotify never panics; it
// either leaves the file to the human (ErrTOMLLayout) or returns one whose
// top-level notify is ours, which a second set leaves alone; and when the
// file had no notify, removing ours gives it back byte for byte.
func FuzzSetNotify(f *testing.F) {
	for _, seed := range []string{
		codexConfig,
		"",
		"notify = [\"python3\", \"n.py\"]\n",
		"model = 'o3' # x\r\n[a]\r\nnotify = ['x']\r\n",
		"s = \"\"\"\n[x]\nnotify = 1\n\"\"\"\n",
		"t = { a = [1, 2], b = \"]\" }\n[[arr]]\nx = 1",
		"bad = \"unterminated\n",
		"a = [\n",
	} {
		f.Add(seed)
	}
	argv := []string{"/opt/notch-web", "hook", "codex"}
	f.Fuzz(func(t *testing.T, src string) {
		before, scanErr := readNotify(src)
		out, err := setNotify(src, argv)
		if err != nil {
			if !errors.Is(err, ErrTOMLLayout) {
				t.Fatalf("setNotify: %v", err)
			}
			return
		}
		st, err := readNotify(out)
		if err != nil {
			t.Fatalf("the result does not scan: %v\n%q", err, out)
		}
		if st.line < 0 || !slices.Equal(st.argv, argv) {
			t.Fatalf("no notify of ours in %q", out)
		}
		if again, err := setNotify(out, argv); err != nil || again != out {
			t.Fatalf("a second set changed it (%v)", err)
		}
		if scanErr == nil && before.line < 0 {
			if back, err := removeNotify(out); err != nil || back != src {
				t.Fatalf("remove gives %q, want %q (%v)", back, src, err)
			}
		}
	})
}
