package window

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCheckProgram(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(plain, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       error // nil: accepted
	}{
		{"the fake window", fakeWindow, nil},
		{"missing", filepath.Join(dir, "AgentsNotch.exe"), fs.ErrNotExist},
		{"a directory", dir, ErrNotProgram},
		{"not executable", plain, ErrNotProgram},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckProgram(tc.path)
			if tc.want == nil {
				if err != nil {
					t.Errorf("CheckProgram(%s) = %v", tc.path, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("CheckProgram(%s) = %v, want %v", tc.path, err, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), tc.path) {
				t.Errorf("the error %q does not name %s", err, tc.path)
			}
		})
	}
	if err := CheckProgram(""); err == nil {
		t.Error("an empty path passed")
	}
}

func TestCheckProgramFollowsSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	link := filepath.Join(t.TempDir(), "window")
	if err := os.Symlink(fakeWindow, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckProgram(link); err != nil {
		t.Errorf("a symlink to the program: %v", err)
	}
}
