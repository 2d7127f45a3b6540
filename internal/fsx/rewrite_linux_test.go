package fsx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On Linux the heartbeat's writes take turns between two files: none
// creates or deletes one (the inode allocation was most of an idle host's
// CPU), and the file is 0644 whatever the umask, like any other write.
func TestRewriterRecyclesTwoFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	r := &Rewriter{Path: path}
	defer r.Close()
	inodes := map[uint64]bool{}
	for i := range 12 {
		if err := r.Write([]byte(strings.Repeat("x", 100+i))); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o644 {
			t.Errorf("write %d: mode %v, want 0644", i+1, info.Mode().Perm())
		}
		if i >= 1 { // the first write makes the file, the second its spare
			inodes[inode(info)] = true
		}
	}
	if len(inodes) != 2 {
		t.Errorf("12 writes put %d files in place, want the same 2 in turn", len(inodes))
	}
	if names := dirNames(t, dir); len(names) != 2 || !strings.HasPrefix(names[0], tempPrefix(path)) {
		t.Errorf("beside the file: %v, want state.json and its spare", names)
	}
}
