package install

import (
	"strings"
	"testing"
)

func TestStatusLineInstallAndRestore(t *testing.T) {
	const exe = "/opt/notch web/notch-web"
	for _, tc := range []struct {
		name, in string
		wantCmd  string // the statusLine command after install
	}{
		{"none before", "{\n  \"model\": \"opus\"\n}\n", `'/opt/notch web/notch-web' statusline`},
		{"the user's own, chained", "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/status --x 'a b'\", \"padding\": 0}\n}\n",
			`'/opt/notch web/notch-web' statusline --chain fi9iaW4vc3RhdHVzIC0teCAnYSBiJw`},
		{"an empty file", "", `'/opt/notch web/notch-web' statusline`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := setStatusLine([]byte(tc.in), exe, "")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), `"command": "`+strings.ReplaceAll(tc.wantCmd, `'`, `'`)+`"`) &&
				!strings.Contains(string(out), `"command":"`+tc.wantCmd+`"`) {
				t.Fatalf("after install:\n%s\nwant command %s", out, tc.wantCmd)
			}
			// A second install changes nothing, and chains no twice.
			again, err := setStatusLine(out, exe, "")
			if err != nil || string(again) != string(out) {
				t.Fatalf("second install changed it:\n%s", again)
			}
			// Uninstall puts back exactly what was there.
			back, err := removeStatusLine(out)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.in
			if want == "" {
				want = "{}\n"
			}
			if string(back) != want {
				t.Errorf("after uninstall:\n%q\nwant\n%q", back, want)
			}
		})
	}
}

func TestStatusLineRefusedAndLeftAlone(t *testing.T) {
	// not a command: refused, untouched
	if _, err := setStatusLine([]byte(`{"statusLine": {"type": "static", "text": "x"}}`), "/bin/notch-web", ""); err == nil {
		t.Error("a statusLine that is not a command was replaced")
	}
	// someone else's: uninstall leaves it
	src := `{"statusLine": {"type": "command", "command": "ccusage statusline"}}`
	out, err := removeStatusLine([]byte(src))
	if err != nil || string(out) != src {
		t.Errorf("uninstall touched another statusline: %s %v", out, err)
	}
}

func TestOwnStatusline(t *testing.T) {
	for _, tc := range []struct {
		cmd, prev string
		ours      bool
	}{
		{"/usr/local/bin/notch-web statusline", "", true},
		{`'/opt/my dir/notch-web' statusline --url http://127.0.0.1:7341 --chain ZWNobyBoaQ`, "echo hi", true},
		{"notch-web hook claude-code", "", false},
		{"ccusage statusline", "", false},
		{"notch-web statusline --chain %%%", "", false},
		{"'unterminated", "", false},
	} {
		prev, ours := ownStatusline(tc.cmd)
		if prev != tc.prev || ours != tc.ours {
			t.Errorf("%q: %q %v, want %q %v", tc.cmd, prev, ours, tc.prev, tc.ours)
		}
	}
}
