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

// BenchmarkRewriter is the same write through a Rewriter, as state.json's
// writer makes it: on Linux the spare rewritten under a lease and
// exchanged with the file, creating and deleting nothing.
func BenchmarkRewriter(b *testing.B) {
	r := &Rewriter{Path: filepath.Join(b.TempDir(), "state.json")}
	defer r.Close()
	data := bytes.Repeat([]byte("x"), 6656)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := r.Write(data); err != nil {
			b.Fatal(err)
		}
	}
}
