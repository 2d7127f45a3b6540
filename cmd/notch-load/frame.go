//go:build unix

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/starfederation/datastar-go/datastar"
)

// floorFrame is what the floor sends for change seq: one
// datastar-patch-elements event, encoded by datastar-go exactly as
// notch-web's hub encodes its own, whose element carries seq's marker (the
// text the clients look for in notch-web's patches), padded so the whole
// frame is size bytes: the floor then puts on the wire what notch-web puts
// there for a change, and the clients read both the same way.
func floorFrame(seq, size int) ([]byte, error) {
	build := func(pad int) ([]byte, error) {
		el := `<div id="floor" class="floor">change ` + marker(seq) + strings.Repeat(".", pad) + `</div>`
		return encodeFrame(func(sse *datastar.ServerSentEventGenerator) error { return sse.PatchElements(el) })
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

// heartbeatFrame is notch-web's heartbeat, byte for byte: the light event
// both servers send a stream that has been silent for a second.
func heartbeatFrame() ([]byte, error) {
	return encodeFrame(func(sse *datastar.ServerSentEventGenerator) error {
		return sse.PatchSignals([]byte(`{"_hb":true}`))
	})
}

// encodeFrame captures what datastar-go writes for one event, as the hub's
// frame does.
func encodeFrame(send func(*datastar.ServerSentEventGenerator) error) ([]byte, error) {
	rec := &recorder{header: http.Header{}}
	req, err := http.NewRequest(http.MethodGet, "/", nil)
	if err != nil {
		return nil, err
	}
	if err := send(datastar.NewSSE(rec, req)); err != nil {
		return nil, err
	}
	return rec.buf.Bytes(), nil
}

// recorder is the smallest http.ResponseWriter with a Flush, to capture a
// frame.
type recorder struct {
	header http.Header
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.buf.Write(b) }
func (r *recorder) WriteHeader(int)             {}
func (r *recorder) Flush()                      {}
