package mesh

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/notch-web/notch-web/internal/fsx"
)

// Files under the mesh's folder of the DSH home
// ($DSH_HOME/state/agents-notch/mesh, mode 0700).
const (
	hubCertFile  = "hub-cert.pem" // the hub's self-signed certificate
	hubKeyFile   = "hub-key.pem"  // its key, 0600
	hubInfoFile  = "hub.json"     // where the running hub listens, for pair
	machinesFile = "machines.json"
	pairsFile    = "pairs.json" // one-time secrets, hashed
	joinFile     = "join.json"  // a joined machine's hub, pin, name and nkey seed, 0600
	storeDir     = "jetstream"
)

// Dir is the mesh's folder in a DSH home.
func Dir(dshHome string) string { return filepath.Join(dshHome, "state", "agents-notch", "mesh") }

// writePrivate replaces path with data, readable by this user only, so
// that a reader never sees half a file.
func writePrivate(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*") // 0600
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// maxFile bounds the mesh's own JSON files.
const maxFile = 4 << 20

// readJSON decodes path into v; a missing file is os.ErrNotExist.
func readJSON(path string, v any) error {
	f, err := fsx.OpenRegular(path) // a FIFO there is refused, not waited on
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() > maxFile {
		return fmt.Errorf("reading %s: %d bytes, more than %d", path, st.Size(), maxFile)
	}
	if err := json.NewDecoder(f).Decode(v); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(path, append(b, '\n'))
}
