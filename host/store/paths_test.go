package store

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// A DSH home whose path holds what a URI reads as its own (? begins the
// query, # the fragment, %41 is an escaped A) keeps the history where it
// belongs: the file at exactly its path, mode 0600, with its WAL beside
// it, and the options applied (WAL, the busy timeout, incremental vacuum,
// synchronous NORMAL); nothing beside the DSH home.
func TestOpenWhereThePathSaysWhateverItHolds(t *testing.T) {
	for _, name := range []string{"home?mode=ro", "home#x", "home%41", "a?b#c%41%2f", "plain"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, name, "state", "agents-notch")
			path := filepath.Join(dir, File)
			now := day0.Add(time.Hour)
			s := openAt(t, path, Options{Now: func() time.Time { return now }})
			aDay(s)
			flush(t, s)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatalf("the history is not at %s: %v", path, err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
			}
			if fi.Size() == 0 {
				if _, err := os.Stat(path + "-wal"); err != nil {
					t.Errorf("neither %s nor its WAL holds the history: %v", path, err)
				}
			}
			entries, _ := os.ReadDir(root)
			if len(entries) != 1 || entries[0].Name() != name {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("beside the DSH home: %q, want only %q", names, name)
			}
			files, _ := os.ReadDir(dir)
			for _, e := range files {
				if !slices.Contains([]string{File, File + "-wal", File + "-shm"}, e.Name()) {
					t.Errorf("%s is beside the history", e.Name())
				}
			}
			ctx := context.Background()
			for _, p := range []struct {
				pragma string
				want   string
			}{
				{"journal_mode", "wal"},
				{"busy_timeout", "2000"},
				{"auto_vacuum", "2"},
				{"synchronous", "1"},
			} {
				var got string
				if err := s.db.QueryRowContext(ctx, `PRAGMA `+p.pragma).Scan(&got); err != nil || got != p.want {
					t.Errorf("PRAGMA %s = %q %v, want %q", p.pragma, got, err, p.want)
				}
			}
			if rows, n, err := s.Sessions(ctx, Query{}); err != nil || n == 0 || len(rows) == 0 {
				t.Errorf("the sessions written: %d %v", n, err)
			}
		})
	}
}
