package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFileAtomic replaces path with data so that a reader sees the old
// file or the new one, never half of either: it writes a temporary file in
// the same directory (a rename is only atomic within one file system),
// fsyncs it, renames it over path and fsyncs the directory where the
// platform supports it, so the rename itself survives a power cut. The file
// is mode 0644; a missing directory is created (0755). os.Rename replaces
// an existing file on Windows too; there a rename that collides with a
// reader holding the file open is retried briefly.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; the window (maybe another user's
	// process) must be able to read it.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := replaceFile(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Best effort: some file systems refuse to fsync a directory, and the
	// file is already in place.
	syncDir(dir)
	return nil
}

// tempPrefix names WriteFileAtomic's temporary files: hidden, and
// recognisably path's, so a leftover from a killed writer can be found.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// removeStaleTemps deletes temporary files a killed writer of path left
// behind. Only old ones: a young one may be another writer's in flight.
func removeStaleTemps(path string, olderThan time.Duration, now time.Time) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	prefix := tempPrefix(path)
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > olderThan {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}
