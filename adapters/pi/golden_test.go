package pi

import (
	"flag"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the code (then review them by reading!)")

// TestGolden replays the payload sequences in testdata/*.jsonl (recorded
// from Pi 0.73.1 through notch-web's extension, and others made from their
// shapes) through Map and a real fold.
func TestGolden(t *testing.T) { golden.Run(t, Map, *update) }
