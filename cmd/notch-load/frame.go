//go:build unix

package main

import (
	"fmt"
	"strings"

	"github.com/notch-web/notch-web/internal/sse"
)

// floorFrame is what the floor sends for change seq: one
// datastar-patch-elements event, made by the encoder notch-web's hub uses
// (internal/sse), whose element carries seq's marker (the
// text the clients look for in notch-web's patches), padded so the whole
// frame is size bytes: the floor then puts on the wire what notch-web puts
// there for a change, and the clients read both the same way.
func floorFrame(seq, size int) ([]byte, error) {
	build := func(pad int) ([]byte, error) {
		el := `<div id="floor" class="floor">change ` + marker(seq) + strings.Repeat(".", pad) + `</div>`
		return sse.Elements([]byte(el)), nil
	}
	base, err := build(0)
	if err != nil {
		return nil, err
	}
	if size < len(base) {
		return nil, fmt.Errorf("a floor frame is at least %d bytes, not %d", len(base), size)
	}
	f, err := build(size - len(base))
	if err != nil {
		return nil, err
	}
	if len(f) != size { // padding is one line of one-byte characters: it cannot happen
		return nil, fmt.Errorf("a floor frame came out %d bytes, not %d", len(f), size)
	}
	return f, nil
}
