package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeDir lays out a Claude Code config folder: a transcript for session
// under projects/p and, per name, a status file under sessions. It returns
// the transcript's path.
func claudeDir(t *testing.T, session string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	tr := filepath.Join(dir, "projects", "-src-p", session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(tr), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, "sessions", name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// status is a status file as Claude Code 2.1.328 writes it.
func status(session, st string, at time.Time) string {
	return fmt.Sprintf(`{"pid":26937,"sessionId":%q,"cwd":"/src/p","startedAt":1796184106931,"version":"2.1.328","kind":"interactive","entrypoint":"cli","name":"p-ca","status":%q,"updatedAt":%d,"statusUpdatedAt":%d}`,
		session, st, at.UnixMilli(), at.UnixMilli())
}

func TestIdle(t *testing.T) {
	since := time.Date(2026, 12, 2, 4, 2, 0, 0, time.UTC)
	after, before := since.Add(3*time.Second), since.Add(-time.Second)
	const sess = "a082f36e-9346-4601-8e92-0b5e3104d6aa"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"Esc before any output: idle after the turn began", map[string]string{"26937.json": status(sess, "idle", after)}, true},
		{"the model is answering", map[string]string{"26937.json": status(sess, "busy", after)}, false},
		{"at its own permission prompt", map[string]string{"26937.json": status(sess, "waiting", after)}, false},
		{"idle from before this turn (not written yet)", map[string]string{"26937.json": status(sess, "idle", before)}, false},
		{"idle at the very ms the turn began", map[string]string{"26937.json": status(sess, "idle", since)}, false},
		{"another session's file", map[string]string{"26937.json": status("other", "idle", after)}, false},
		{"found among others", map[string]string{
			"1.json": status("other", "busy", after), "2.json": "not json", "3.txt": status(sess, "busy", after),
			"26937.json": status(sess, "idle", after)}, true},
		{"unparseable", map[string]string{"26937.json": `{"sessionId":` + `"` + sess + `","status":"idle","statusUpdatedAt":"soon"}`}, false},
		{"too big", map[string]string{"26937.json": status(sess, "idle", after)[:20] + strings.Repeat(" ", statusMax) + `}`}, false},
		{"no status file", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Idle(claudeDir(t, sess, tc.files), since); got != tc.want {
				t.Errorf("Idle = %v, want %v", got, tc.want)
			}
		})
	}
	for _, p := range []string{"relative/projects/p/s.jsonl", "/no/such/projects/p/s.jsonl", "/tmp/s.jsonl", "/x/projects/p/s.json", ""} {
		if Idle(p, since) {
			t.Errorf("Idle(%q) = true", p)
		}
	}
}

// TestIdleFileReused: a pid's status file that comes to hold another
// session (the pid was reused) is not read as the first one's.
func TestIdleFileReused(t *testing.T) {
	since := time.Now().Add(-time.Minute)
	tr := claudeDir(t, "s1", map[string]string{"7.json": status("s1", "busy", time.Now())})
	if Idle(tr, since) {
		t.Fatal("busy read as idle")
	}
	file := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(tr))), "sessions", "7.json")
	os.WriteFile(file, []byte(status("s2", "idle", time.Now())), 0o600)
	if Idle(tr, since) {
		t.Fatal("another session's status read as s1's")
	}
	os.WriteFile(filepath.Join(filepath.Dir(file), "8.json"), []byte(status("s1", "idle", time.Now())), 0o600)
	if !Idle(tr, since) {
		t.Fatal("s1's new file not found")
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(status("s", "idle", time.Now())))
	f.Add([]byte(`{"sessionId":1}`))
	f.Fuzz(func(t *testing.T, buf []byte) {
		var st statusFile
		parseStatus(buf, &st)
	})
}

func TestProcessAndSettled(t *testing.T) {
	const sess = "b082f36e-9346-4601-8e92-0b5e3104d6ab"
	since := time.Date(2026, 12, 3, 11, 0, 0, 0, time.UTC)
	withStart := func(body, start string) string {
		return strings.Replace(body, `"pid":26937,`, `"pid":26937,"procStart":"`+start+`",`, 1)
	}
	tr := claudeDir(t, sess, map[string]string{"26937.json": withStart(status(sess, "idle", since.Add(time.Second)), "66123")})
	if pid, start, ok := Process(tr); !ok || pid != 26937 || start != 66123 {
		t.Errorf("Process = %d, %d, %v; want 26937, 66123", pid, start, ok)
	}
	if o, ok := Settled(tr, since); !ok || o != "completed" {
		t.Errorf("Settled after an idle since = %q, %v", o, ok)
	}
	if _, ok := Settled(tr, since.Add(time.Minute)); ok {
		t.Error("Settled by an idle from before since")
	}
	for name, body := range map[string]string{
		"no procStart":             status(sess, "busy", since),
		"a procStart not a number": withStart(status(sess, "busy", since), "66123; rm"),
		"another session's":        withStart(status("other", "busy", since), "1"),
	} {
		tr := claudeDir(t, sess, map[string]string{"26937.json": body})
		if _, _, ok := Process(tr); ok {
			t.Errorf("%s: Process found one", name)
		}
		if _, ok := Settled(tr, since.Add(-time.Hour)); ok {
			t.Errorf("%s: Settled while busy", name)
		}
	}
}
