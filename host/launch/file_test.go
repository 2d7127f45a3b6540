package launch

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, err string // err: a part of the error; "" parses
	}{
		{"empty allows nothing", `{"version":1}`, ""},
		{"a root and an agent", `{"version":1,"roots":["/src"],"agents":{"claude-code":{}}}`, ""},
		{"an argv of its own", `{"version":1,"roots":["/src"],"agents":{"codex":{"argv":["/opt/codex","-m","o3"]}}}`, ""},
		{"worktrees in a root", `{"version":1,"roots":["/src"],"worktrees":"/src/.wt"}`, ""},
		{"bounds", `{"version":1,"maxSessions":64,"startsPerMinute":60}`, ""},
		{"no version", `{}`, "version 0"},
		{"a later version", `{"version":2}`, "version 2"},
		{"an unknown field", `{"version":1,"root":["/src"]}`, "unknown field"},
		{"a key twice", `{"version":1,"version":1}`, "twice"},
		{"trailing data", `{"version":1} {}`, "trailing"},
		{"a relative root", `{"version":1,"roots":["src"]}`, "not an absolute path"},
		{"an unclean root", `{"version":1,"roots":["/src/../etc"]}`, "not clean"},
		{"the file system's root", `{"version":1,"roots":["/"]}`, "too wide"},
		{"a root twice", `{"version":1,"roots":["/src","/src"]}`, "twice"},
		{"a newline in a root", `{"version":1,"roots":["/src\nx"]}`, "control"},
		{"a bidi mark in a root", `{"version":1,"roots":["/src/\u202eevil"]}`, "hides"},
		{"an unknown agent", `{"version":1,"agents":{"bash":{}}}`, "not an agent"},
		{"an option for a program", `{"version":1,"agents":{"codex":{"argv":["-rf"]}}}`, "not an option"},
		{"an empty argument", `{"version":1,"agents":{"codex":{"argv":["codex",""]}}}`, "plain text"},
		{"an escape in an argument", `{"version":1,"agents":{"codex":{"argv":["codex","\u001b[2J"]}}}`, "plain text"},
		{"worktrees outside the roots", `{"version":1,"roots":["/src"],"worktrees":"/tmp/wt"}`, "not inside a root"},
		{"worktrees beside a root's name", `{"version":1,"roots":["/src"],"worktrees":"/src2"}`, "not inside a root"},
		{"too many sessions", `{"version":1,"maxSessions":65}`, "maxSessions"},
		{"negative rate", `{"version":1,"startsPerMinute":-1}`, "startsPerMinute"},
		{"not an object", `[]`, "array"},
		{"megabytes", `{"version":1,"roots":["/` + strings.Repeat("a", 70<<10) + `"]}`, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.in))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.err != "" && err == nil:
				t.Fatalf("Parse took it: %+v", f)
			case tt.err != "" && !strings.Contains(err.Error(), tt.err):
				t.Fatalf("Parse: %v; want it to say %q", err, tt.err)
			}
		})
	}
}

// A file written by Write reads back the same, mode 0600; a file others
// may write is refused, saying what to do; a missing file is off.
func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	f, err := Read(path)
	if err != nil || f.On() {
		t.Fatalf("a missing file: %+v, %v; want off and no error", f, err)
	}
	want := File{Roots: []string{"/src"}, Agents: map[string]Agent{"claude-code": {}}, MaxSessions: 2}
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil || !got.On() || got.Sessions() != 2 || got.Rate() != DefaultRate || got.Roots[0] != "/src" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o, want 0600", fi.Mode().Perm())
	}
	if err := os.Chmod(path, 0o620); err != nil {
		t.Fatal(err)
	}
	_, err = Read(path)
	if !errors.Is(err, ErrUnsafeFile) || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a group-writable file: %v; want ErrUnsafeFile naming chmod 600", err)
	}
	if err := Write(path, File{Roots: []string{"rel"}}); err == nil {
		t.Fatal("Write took a relative root")
	}
}

// FuzzParse: Parse never panics, and what it takes formats to a file it
// takes again, the same.
func FuzzParse(f *testing.F) {
	// A whole file.
	f.Add([]byte(`{"version":1,"roots":["/src"],"agents":{"claude-code":{},"codex":{"argv":["/opt/codex","-m","o3"]}},"worktrees":"/src/.wt","maxSessions":3,"startsPerMinute":5}`))
	// A relative root; an unknown agent; a bidi mark.
	f.Add([]byte(`{"version":1,"roots":["src"],"agents":{"bash":{}}}`))
	f.Add([]byte("{\"version\":1,\"roots\":[\"/a/\u202e\"]}"))
	// Not an object; nothing.
	f.Add([]byte(`[1]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(Format(got))
		if err != nil {
			t.Fatalf("Format of a parsed file does not parse: %v\n%s", err, Format(got))
		}
		if string(Format(again)) != string(Format(got)) {
			t.Fatalf("not stable:\n%s\n%s", Format(got), Format(again))
		}
	})
}
