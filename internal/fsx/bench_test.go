package fsx

import (
	"bytes"
	"path/filepath"
	"testing"
)

// BenchmarkWriteFileAtomicNoSync is one of state.json's heartbeats on
// disk: 6.5 KiB (20 sessions' document) to a temporary file renamed into place, no
// fsync.
func BenchmarkWriteFileAtomicNoSync(b *testing.B) {
	path := filepath.Join(b.TempDir(), "state.json")
	data := bytes.Repeat([]byte("x"), 6656)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := WriteFileAtomicNoSync(path, data); err != nil {
			b.Fatal(err)
		}
	}
}
