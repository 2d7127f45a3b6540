package claudecode

import (
	"flag"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the code (then review them by reading!)")

// TestGolden replays the recorded hook sequences in testdata/*.jsonl
// (built from the documented payload shapes) through Map and a real fold.
func TestGolden(t *testing.T) { golden.Run(t, Map, *update) }
