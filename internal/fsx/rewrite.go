package fsx

import "sync"

// Rewriter replaces one file over and over, as WriteFileAtomicNoSync does
// (a reader sees the old file or the new one, never half of either; no
// fsync), for a file rewritten so often that the cost of each replace
// counts: state.json's heartbeat, three times a second for as long as the
// host runs.
//
// On Linux it keeps a spare beside the file, named as a temporary file of
// this process (RemoveStaleTemps removes a killed writer's). A write puts
// the new bytes in the spare and exchanges it with the file in one
// rename (renameat2 RENAME_EXCHANGE), so the old file becomes the spare:
// the same two files take turns, and no write creates or deletes a file —
// on ext4 the file system's inode allocation was most of an idle host's
// CPU (issue 34). The spare is rewritten only under a write lease
// (F_SETLEASE), which the kernel grants only when no one else has the
// file open: a reader that opened the file before it became the spare
// keeps reading what it opened, whole, while the write goes to a new
// spare instead. Elsewhere, and wherever the file system refuses the lease
// or the exchange, a write is WriteFileAtomicNoSync.
//
// A Rewriter's methods may be called from several goroutines.
type Rewriter struct {
	Path string

	mu    sync.Mutex
	spare string // the spare's path ("": none yet)
	plain bool   // no leases or no exchange here: every write is WriteFileAtomicNoSync
}

// Write replaces the file's contents with data.
func (r *Rewriter) Write(data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.plain {
		return WriteFileAtomicNoSync(r.Path, data)
	}
	return r.write(data)
}

// Close removes the spare, if any; the file stays. A Write after Close
// makes a new spare.
func (r *Rewriter) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.close()
}
