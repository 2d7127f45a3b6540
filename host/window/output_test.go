package window

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/logx"
)

func TestLineWriter(t *testing.T) {
	logs := &logBuf{}
	w := newLineWriter(logx.New(logs, slog.LevelDebug), "stdout")
	w.started(77)
	for _, chunk := range []string{"hel", "lo\r\nwor", "ld\n\n", strings.Repeat("y", 2500), "z\nlast without newline"} {
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	w.flush()
	var got []string
	for _, r := range logs.records(t, "window-output") {
		if r.Level != "DEBUG" || num(t, r, "pid") != 77 || r.Data["stream"] != "stdout" {
			t.Errorf("record = %+v", r)
		}
		got = append(got, r.Data["line"].(string))
	}
	want := []string{"hello", "world", strings.Repeat("y", maxOutputLine-len("…")) + "…", "last without newline"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %.200q, want %.200q", got, want)
	}
}

func TestLineWriterQuietAboveDebug(t *testing.T) {
	logs := &logBuf{}
	w := newLineWriter(logx.New(logs, slog.LevelInfo), "stderr")
	w.started(1)
	w.Write([]byte("noise\n"))
	if logs.text() != "" {
		t.Errorf("output logged at INFO: %s", logs.text())
	}
}
