package service

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/notch-web/notch-web/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// spec is a service with everything its quoting must survive: a space in
// the binary's path, a percent sign and a dollar (systemd's specifier and
// variable), a quote, a backslash and markup.
var spec = Spec{
	Exe:     "/home/me/my tools/notch-web",
	Args:    []string{"--addr", "127.0.0.1:7340", "--dsh-home", "/home/me/.dsh", "--allow-host", "laptop.tail<net>.ts.net", "--patch", `/home/me/100% "real"\row.yml`, "--public-url", "https://x.example/$HOME"},
	DSHHome: "/home/me/.dsh",
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []byte
	}{
		{"notch-web.service", Unit(spec)},
		{"io.notch-web.host.plist", Plist(spec)},
		{"notch-web-task.xml", Task(Spec{Exe: `C:\Users\Me\go\bin\notch-web.exe`, Args: []string{"--dsh-home", `C:\Users\Me\.dsh`, "--patch", `C:\a b\"q".yml`, "--allow-host", `trailing\`}}, `LAPTOP\Me`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goldenfile.Check(t, filepath.Join("testdata", tc.name), filepath.Join("testdata", tc.name+".actual"), tc.got, *update)
			if !Intact(tc.got) {
				t.Error("a file as written is not Intact")
			}
		})
	}
}

// systemd itself reads the unit: systemd-analyze verify, where Debian's
// systemd is installed (the binary's path must exist for it, so the unit
// runs /bin/true here).
func TestUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze here (apt-get install systemd)")
	}
	dir := t.TempDir()
	s := spec
	s.Exe = "/bin/true"
	path := filepath.Join(dir, Name+".service")
	if err := os.WriteFile(path, Unit(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// ExecStart's words come back as given: systemd's quoting, read by the
// rules of systemd.service(5).
func TestSystemdQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":       "plain",
		"a b":         `"a b"`,
		"100%":        "100%%",
		"$HOME":       "$$HOME",
		`say "hi"`:    `"say \"hi\""`,
		`back\slash`:  `"back\\slash"`,
		"":            `""`,
		"semi;colon":  `"semi;colon"`,
		"bell\a":      `bell\x07`,
		"\u202eright": "\u202eright",
	} {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestEscapeArg(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        "plain",
		"a b":          `"a b"`,
		`C:\a b\`:      `"C:\a b\\"`,
		`say "hi"`:     `"say \"hi\""`,
		`C:\no\spaces`: `C:\no\spaces`,
		"":             `""`,
	} {
		if got := escapeArg(in); got != want {
			t.Errorf("escapeArg(%q) = %s, want %s", in, got, want)
		}
	}
}

// Write: a new file is written; the same content again changes nothing;
// notch-web's own file is replaced; a file someone edited is refused, and
// replaced with --force keeping a backup; the mode is kept, never widened.
func TestWriteKeepsAnEditedFile(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	path := filepath.Join(t.TempDir(), "systemd", "user", "notch-web.service")
	res, err := Write(path, Unit(spec), false, now)
	if err != nil || !res.Changed {
		t.Fatalf("a new unit: %+v %v", res, err)
	}
	if res, err := Write(path, Unit(spec), false, now); err != nil || res.Changed {
		t.Fatalf("the same unit again: %+v %v", res, err)
	}
	other := spec
	other.Args = []string{"--hub"}
	if res, err := Write(path, Unit(other), false, now); err != nil || !res.Changed || res.Backup != "" {
		t.Fatalf("notch-web's own unit, new flags: %+v %v", res, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(Unit(other)), "RestartSec=2", "RestartSec=30", 1)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(path, Unit(spec), false, now); !errors.Is(err, ErrEdited) {
		t.Fatalf("an edited unit: %v, want ErrEdited", err)
	}
	if b, _ := os.ReadFile(path); string(b) != edited {
		t.Fatal("the edited unit was changed")
	}
	if _, err := Remove(path, false, now); !errors.Is(err, ErrEdited) {
		t.Fatalf("removing an edited unit: %v, want ErrEdited", err)
	}
	res, err = Write(path, Unit(spec), true, now)
	if err != nil || !res.Changed || res.Backup == "" {
		t.Fatalf("--force: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != edited {
		t.Error("the backup is not the edited unit")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after the replace, want 0600 kept", fi.Mode().Perm())
	}
	if res, err := Remove(path, false, now); err != nil || !res.Changed {
		t.Fatalf("removing notch-web's unit: %+v %v", res, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("the unit is still there")
	}
}

// Intact reads any bytes: a file notch-web did not write is never its own.
func TestIntact(t *testing.T) {
	for _, b := range []string{"", "[Unit]\n", "# notch-web-sha256: " + strings.Repeat("0", 64) + "\n[Unit]\n", "\x00\xff"} {
		if Intact([]byte(b)) {
			t.Errorf("Intact(%q) = true", b)
		}
	}
}

func FuzzIntact(f *testing.F) {
	f.Add(Unit(spec))                       // notch-web's own
	f.Add([]byte("[Unit]\n"))               // a unit of someone else's
	f.Add([]byte("# notch-web-sha256: \n")) // a mark without its hash
	f.Fuzz(func(t *testing.T, b []byte) { Intact(b) })
}

// The task is stored as UTF-16, and is still recognised as notch-web's.
func TestTaskUTF16Intact(t *testing.T) {
	b := UTF16(Task(Spec{Exe: `C:\nw.exe`}, `PC\me`))
	if !Intact(b) {
		t.Fatal("the task as stored is not Intact")
	}
	b[len(b)-4] = 'X'
	if Intact(b) {
		t.Fatal("an edited task is Intact")
	}
}
