//go:build unix

package claudecode

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestContextTokensFIFO: a FIFO named as a transcript (by a hostile body)
// is refused at once, not read forever.
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
	case <-time.After(2 * time.Second):
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
	case <-time.After(2 * time.Second):
		t.Fatal("Idle blocked on a FIFO")
	}
}
