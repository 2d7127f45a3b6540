package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/service"
)

// fakeManager records the service manager's commands and answers them.
type fakeManager struct {
	ran     []string
	answers map[string]string // a command's first two words → its output
	fail    map[string]bool
}

func (f *fakeManager) exec(_ context.Context, name string, args ...string) (string, error) {
	line := strings.Join(append([]string{name}, args...), " ")
	f.ran = append(f.ran, line)
	key := name + " " + strings.Join(args[:min(2, len(args))], " ")
	if f.fail[key] {
		return "", errors.New("Failed to connect to bus: No medium found")
	}
	return f.answers[key], nil
}

func serviceRun(t *testing.T, goos string, f *fakeManager, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	c := serviceCmd{goos: goos, exec: f.exec, now: func() time.Time { return time.UnixMilli(1_765_000_000_000) },
		exe: func(string) (string, error) { return "/opt/notch-web/notch-web", nil }}
	var out, errb bytes.Buffer
	err := c.main(context.Background(), args, func(k string) string { return env[k] }, &out, &errb)
	return out.String(), errb.String(), err
}

// install writes the platform's file with the host's flags and this DSH
// home, and starts it; again, it changes nothing; uninstall stops it and
// removes the file; an edited file is refused (one line, an error) until
// --force, which keeps a backup.
func TestServiceInstall(t *testing.T) {
	for _, tc := range []struct {
		goos, file string
		start      []string
	}{
		{"linux", ".config/systemd/user/notch-web.service", []string{"systemctl --user daemon-reload", "systemctl --user enable notch-web.service", "systemctl --user restart notch-web.service"}},
		{"darwin", "Library/LaunchAgents/io.notch-web.host.plist", nil},
		{"windows", "local/notch-web/notch-web-task.xml", nil},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home, "DSH_HOME": filepath.Join(home, ".dsh"), "LOCALAPPDATA": filepath.Join(home, "local")}
			if tc.goos == "windows" {
				// service.TaskPath joins with backslashes: a Windows path.
				env["LOCALAPPDATA"] = home + `\local`
				tc.file = `\local\notch-web\notch-web-task.xml`
			} else {
				tc.file = "/" + tc.file
			}
			path := home + tc.file
			f := &fakeManager{}
			out, errOut, err := serviceRun(t, tc.goos, f, env, "install", "--allow-host", "laptop.example", "--hub")
			if err != nil {
				t.Fatalf("install: %v %s", err, errOut)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no service file: %v\n%s", err, out)
			}
			text := string(b)
			if tc.goos == "windows" {
				text = string(bytesForShow(b))
			}
			for _, want := range []string{"/opt/notch-web/notch-web", "laptop.example", "--hub", filepath.Join(home, ".dsh")} {
				if !strings.Contains(text, want) {
					t.Errorf("the service file lacks %q:\n%s", want, text)
				}
			}
			if tc.start != nil && strings.Join(f.ran, "\n") != strings.Join(tc.start, "\n") {
				t.Errorf("ran %q, want %q", f.ran, tc.start)
			}
			if out, _, err := serviceRun(t, tc.goos, &fakeManager{}, env, "install", "--allow-host", "laptop.example", "--hub"); err != nil || !strings.Contains(out, "already says this") {
				t.Errorf("a second install: %q %v", out, err)
			}
			// Edited by hand: refused, untouched.
			edited := append(b, []byte("<!-- mine -->\n")...)
			if tc.goos == "windows" {
				edited = service.UTF16([]byte(text + "<!-- mine -->\n"))
			}
			os.WriteFile(path, edited, 0o644)
			_, errOut, err = serviceRun(t, tc.goos, &fakeManager{}, env, "install")
			if err == nil || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--force") {
				t.Fatalf("an edited file: %q %v, want one line naming --force", errOut, err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, edited) {
				t.Fatal("the edited file was changed")
			}
			if _, _, err := serviceRun(t, tc.goos, &fakeManager{}, env, "uninstall"); err == nil {
				t.Fatal("uninstall removed an edited file without --force")
			}
			out, _, err = serviceRun(t, tc.goos, &fakeManager{}, env, "install", "--force")
			if err != nil || !strings.Contains(out, "kept the edited file as") {
				t.Fatalf("--force: %q %v", out, err)
			}
			f = &fakeManager{}
			if _, errOut, err := serviceRun(t, tc.goos, f, env, "uninstall"); err != nil {
				t.Fatalf("uninstall: %v %s", err, errOut)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the service file is still there: %v", err)
			}
			if len(f.ran) == 0 {
				t.Error("uninstall did not stop the service")
			}
		})
	}
}

// The host's flags are checked at install, not at the next login.
func TestServiceInstallChecksTheFlags(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "DSH_HOME": home}
	for _, args := range [][]string{
		{"install", "--adr", "x"},
		{"install", "--addr", "7341"},
		{"install", "--follow", "/x/state.json"},
		{"frobnicate"},
		{},
	} {
		_, errOut, err := serviceRun(t, "linux", &fakeManager{}, env, args...)
		if err == nil || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: %q %v, want one line and an error", args, errOut, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused install wrote something")
	}
}

// With no user systemd to talk to, the unit is written and the one line
// says which command to run.
func TestServiceInstallWithoutSystemd(t *testing.T) {
	home := t.TempDir()
	f := &fakeManager{fail: map[string]bool{"systemctl --user daemon-reload": true}}
	_, errOut, err := serviceRun(t, "linux", f, map[string]string{"HOME": home, "DSH_HOME": home}, "install")
	if err == nil || !strings.Contains(errOut, "systemctl --user daemon-reload failed") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("%q %v", errOut, err)
	}
}

// status: running since when, the URL the host wrote, the last ERROR
// record of its journal.
func TestServiceStatus(t *testing.T) {
	home := t.TempDir()
	dsh := filepath.Join(home, ".dsh")
	env := map[string]string{"HOME": home, "DSH_HOME": dsh}
	if out, _, _ := serviceRun(t, "linux", &fakeManager{}, env, "status"); !strings.Contains(out, "not installed") {
		t.Fatalf("status before install: %q", out)
	}
	if _, _, err := serviceRun(t, "linux", &fakeManager{}, env, "install"); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(hostFilePath(dsh)), 0o700)
	os.WriteFile(hostFilePath(dsh), []byte(`{"url":"http://127.0.0.1:7340","pid":1,"started":"2026-12-07T08:00:00Z"}`), 0o600)
	f := &fakeManager{answers: map[string]string{
		"systemctl --user show": "ActiveState=active\nSubState=running\nActiveEnterTimestamp=Mon 2026-12-07 08:00:00 UTC\nNRestarts=2\nResult=success\n",
		"journalctl --user -u":  `{"timestamp":"2026-12-07T07:59:00Z","level":"INFO","message":"serving"}` + "\n" + `{"timestamp":"2026-12-07T07:58:00Z","level":"ERROR","message":"cannot listen on 127.0.0.1:7340","error":{"message":"address in use \u001b[31m"}}` + "\nnot json\n",
	}}
	out, _, err := serviceRun(t, "linux", f, env, "status")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(as notch-web wrote it)", "running:    active (running)", "since:      Mon 2026-12-07 08:00:00 UTC", "restarts:   2", "URL:        http://127.0.0.1:7340/agents-notch/", `last error: 2026-12-07T07:58:00Z cannot listen on 127.0.0.1:7340: address in use \x1b[31m`} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

func FuzzLastError(f *testing.F) {
	f.Add(`{"level":"ERROR","message":"m","error":{"message":"e"}}`) // a record
	f.Add("\x1b[2J" + `{"level":"ERROR"`)                            // a broken one
	f.Fuzz(func(t *testing.T, log string) {
		if strings.ContainsAny(lastError(log), "\x1b\n") {
			t.Fatal("lastError let a control character through")
		}
	})
}
