package qwen

import (
	"flag"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the code (then review them by reading!)")

// TestGolden replays the hook sequences recorded from Qwen Code 0.24.4 in
// testdata/*.jsonl through Map and a real fold.
func TestGolden(t *testing.T) { golden.Run(t, Map, *update) }
