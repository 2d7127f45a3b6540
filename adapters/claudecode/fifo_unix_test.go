//go:build unix

package claudecode

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// TestContextTokensFIFO: a FIFO named as a transcript (by a hostile body)
// is refused, not read forever: a FIFO no one writes blocks an open forever,
// so returning within waitfor's patience is the proof.
func TestContextTokensFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan bool, 1)
	go func() { _, ok := ContextTokens(path); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO answered")
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("ContextTokens blocked on a FIFO")
	}
}

// TestIdleFIFO: a FIFO in the sessions folder is passed over at once.
func TestIdleFIFO(t *testing.T) {
	tr := claudeDir(t, "s1", nil)
	fifo := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(tr))), "sessions", "9.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan bool, 1)
	go func() { done <- Idle(tr, time.Time{}) }()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO answered")
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("Idle blocked on a FIFO")
	}
}
