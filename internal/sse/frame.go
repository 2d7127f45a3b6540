package sse

import (
	"bytes"
	"net/http"

	"github.com/starfederation/datastar-go/datastar"
)

// Elements is a datastar-patch-elements event carrying html. With Signals
// it is the one place where bytes for the wire are made — the hub sends
// them and the load tool's floor sends the very same bytes: every payload
// is split into data lines by Lines (CRLF, LF and a lone CR, where
// datastar-go splits at LF only), and every frame passes Check, so no
// content — a title, a reason, a warning — can end a line or an event early
// and start one of its own. For markup the split is lossless: an HTML
// parser turns CR and CRLF into LF anyway.
func Elements(html []byte) []byte {
	return frame(datastar.EventTypePatchElements, datastar.ElementsDatalineLiteral, html)
}

// Signals is a datastar-patch-signals event carrying a JSON object.
func Signals(json []byte) []byte {
	return frame(datastar.EventTypePatchSignals, datastar.SignalsDatalineLiteral, json)
}

// Heartbeat is the light event a stream that has been silent for a second
// gets, so a page can tell a live host from a dead one.
var Heartbeat = Signals([]byte(`{"_hb":true}`))

// frame encodes one event through datastar-go's Send, each data line of
// payload prefixed with the line's key. A frame that fails Check is a
// programming error: it panics rather than send an event it did not mean.
func frame(typ datastar.EventType, key string, payload []byte) []byte {
	lines := Lines(string(payload))
	for i, l := range lines {
		lines[i] = key + l
	}
	rec := &recorder{header: http.Header{}}
	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	if err := datastar.NewSSE(rec, req).Send(typ, lines); err != nil {
		panic(err) // a recorder never fails a write
	}
	b := bytes.Clone(rec.buf.Bytes())
	if err := Check(b); err != nil {
		panic(err)
	}
	return b
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
