package copilot

import (
	"flag"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the code (then review them by reading!)")

// TestGolden replays the hook sequences in testdata/*.jsonl (recorded from
// Copilot CLI 1.0.102 against the stand-in, or built from those) through
// Map and a real fold.
func TestGolden(t *testing.T) { golden.Run(t, Map, *update) }
