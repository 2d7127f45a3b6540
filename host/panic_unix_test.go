//go:build unix

package host

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/host/changes"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
)

// A panic while a session's start point is recorded (on its own
// goroutine, started by the session's first hook) is the standard fatal
// ERROR record and exit 2. The defect here: the log's handler, met on the
// record of a git that failed (a stand-in git: rev-parse answers, status
// fails).
func TestAStartPointsPanicIsTheFatalRecord(t *testing.T) {
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	const noStart = "no start point for a session's changes"
	e := newApEnvLog(t, ApprovalConfig{}, func(w io.Writer) slog.Handler {
		return panicsOn{slog.NewJSONHandler(w, nil), noStart}
	})
	bin := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\ncase \"$*\" in *rev-parse*--show-toplevel*) pwd ;; *status*) echo broken >&2; exit 1 ;; *) exit 1 ;; esac\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.h.starts.git = changes.Git{Path: bin}
	dir := t.TempDir()
	e.send(t, []byte(`{"session_id":"s1","transcript_path":`+jsonString(e.transcript)+
		`,"cwd":`+jsonString(dir)+`,"hook_event_name":"SessionStart","source":"startup"}`))
	fataltest.Wait(t, codes, e.logText, "a defect writing: "+noStart)
}
