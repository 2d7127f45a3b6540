package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	goldenfile "github.com/notch-web/notch-web/internal/golden"
)

var updateDoctor = flag.Bool("update-doctor", false, "rewrite testdata/doctor.golden")

// The doctor on a machine with a removed hook, a stopped host and a bad
// notify.json says all three, each with its fix, and fails.
func TestDoctorGolden(t *testing.T) {
	home := t.TempDir()
	dsh := filepath.Join(home, ".dsh")
	// A host that stopped: a port nobody listens on any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	base := "http://127.0.0.1:" + port
	env := map[string]string{"HOME": home, "DSH_HOME": dsh}
	getenv := func(k string) string { return env[k] }
	if _, err := install.Install(install.Options{Agent: "claude-code", Home: home, Dir: home, URL: base, Exe: "/opt/notch-web/notch-web", Getenv: getenv}); err != nil {
		t.Fatal(err)
	}
	// Another tool rewrote the settings and took out notch-web's Stop hook.
	settings := filepath.Join(home, ".claude", "settings.json")
	var doc map[string]any
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["hooks"].(map[string]any), "Stop")
	b, _ = json.MarshalIndent(doc, "", "  ")
	os.WriteFile(settings, b, 0o644)
	// A notify.json that does not parse.
	os.MkdirAll(filepath.Join(dsh, "state", "agents-notch"), 0o700)
	os.WriteFile(notifyPath(dsh), []byte(`{"ntfy": [{"name": "phone", "url": "not a url"}],}`), 0o600)

	d := doctor{getenv: getenv, home: dsh, dir: t.TempDir(),
		lookPath: func(string) (string, error) { return "/usr/bin/tmux", nil },
		svc:      serviceCmd{goos: "linux", exec: (&fakeManager{}).exec, now: time.Now}}
	checks := d.run(context.Background())
	// The temporary home and the port, named the same every run, before
	// the report wraps its lines.
	for i := range checks {
		for _, f := range []*string{&checks[i].what, &checks[i].fix} {
			*f = strings.ReplaceAll(strings.ReplaceAll(*f, home, "$HOME"), port, "PORT")
		}
	}
	var out bytes.Buffer
	bad := printChecks(&out, checks)
	if bad != 3 {
		t.Errorf("%d problems, want 3 (the hook, the host, notify.json)", bad)
	}
	got := out.String()
	goldenfile.Check(t, filepath.Join("testdata", "doctor.golden"), filepath.Join("testdata", "doctor.actual"), []byte(got), *updateDoctor)
	for i, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > helpWidth {
			t.Errorf("line %d is wider than %d columns: %q", i+1, helpWidth, l)
		}
	}
}

// doctor as a command: one report on stdout, exit status 1.
func TestDoctorCommand(t *testing.T) {
	stdout, stderr, err := runCmd(t, "doctor", "--url", "http://127.0.0.1:1")
	if err == nil || stderr != "" || !strings.Contains(stdout, "notch-web doctor: ") || !strings.Contains(stdout, "fix: ") {
		t.Errorf("doctor: %v %q\n%s", err, stderr, stdout)
	}
	if _, stderr, err := runCmd(t, "doctor", "extra"); err == nil || strings.Count(stderr, "\n") != 1 {
		t.Errorf("doctor extra: %v %q", err, stderr)
	}
}
