package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ~ is found where the harness, the window and os.UserHomeDir find it:
// on Windows USERPROFILE first, so all three read the same cordis.patch.yml
// and write the same manual.json.
func TestHomeDirOrder(t *testing.T) {
	cases := []struct {
		goos, home, profile, want string
	}{
		{"windows", `C:\msys\home\me`, `C:\Users\me`, `C:\Users\me`},
		{"windows", "", `C:\Users\me`, `C:\Users\me`},
		{"windows", `C:\msys\home\me`, "", `C:\msys\home\me`},
		{"windows", "", "", ""},
		{"linux", "/home/me", "/mnt/c/Users/me", "/home/me"},
		{"darwin", "/Users/me", "", "/Users/me"},
		{"linux", "", "/mnt/c/Users/me", ""},
	}
	for _, tc := range cases {
		if got := homeDir(env("HOME", tc.home, "USERPROFILE", tc.profile), tc.goos); got != tc.want {
			t.Errorf("%s, HOME %q, USERPROFILE %q: home %q, want %q", tc.goos, tc.home, tc.profile, got, tc.want)
		}
	}
}

// The doctor looks for the agents' hooks in the home hooks install wrote
// them to: on Windows USERPROFILE first, not HOME (an MSYS shell sets both).
func TestDoctorLooksWhereHooksInstallWrote(t *testing.T) {
	getenv := env("HOME", `C:\msys\home\me`, "USERPROFILE", `C:\Users\me`)
	for _, goos := range []string{"windows", "linux", "darwin"} {
		d := doctor{getenv: getenv, svc: serviceCmd{goos: goos}}
		if got, want := d.userHome(), homeDir(getenv, goos); got != want {
			t.Errorf("%s: the doctor looks under %q, hooks install writes under %q", goos, got, want)
		}
	}
}

// --patch layers on the DSH home's cordis.patch.yml, as the harness's
// --patch overlay does: the home's row (its budget) stands where the
// overlay says nothing of it.
func TestPatchFlagLayersOnTheHomesRow(t *testing.T) {
	home := t.TempDir()
	overlay := filepath.Join(t.TempDir(), "overlay.yml")
	os.WriteFile(filepath.Join(home, "cordis.patch.yml"), []byte("- insert:\n    id: agents-notch\n    config: {scale: 1.25, context: {budget: 200000}}\n"), 0o644)
	os.WriteFile(overlay, []byte("- id: other-row\n  config: {x: 1}\n"), 0o644)
	base, _ := startRun(t, "--dsh-home", home, "--patch", overlay)
	res, err := http.Get(base + "/agents-notch/state")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"budget":200000`) || !strings.Contains(string(body), `"scale":1.25`) {
		t.Errorf("with --patch the home's row is lost: %s", body)
	}
}
