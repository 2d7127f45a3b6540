//go:build unix

package host

import (
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// An edit that names a FIFO in the session's folder lays its card out
// from the edit alone, at once: the FIFO is never opened to wait for a
// writer (before, the held hook — and the agent behind it — waited for
// ever).
func TestCardChangeNeverWaitsOnAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, tool := range []string{"Edit", "Write"} {
		input, _ := json.Marshal(map[string]any{"file_path": fifo, "old_string": "a", "new_string": "b", "content": "b\n"})
		done := make(chan []CardFile, 1)
		go func() { done <- cardChange(tool, input, dir) }()
		select {
		case files := <-done:
			if len(files) != 1 || files[0].Path != "pipe.txt" {
				t.Errorf("%s of a FIFO: %+v, want its one file from the edit", tool, files)
			}
		case <-time.After(30 * time.Second): // a guard, not the assertion
			t.Fatalf("%s of a FIFO: the card still waits on it", tool)
		}
	}
}
