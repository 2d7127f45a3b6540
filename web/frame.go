package web

import (
	"bytes"
	"net/http"

	"github.com/starfederation/datastar-go/datastar"

	"github.com/notch-web/notch-web/internal/sse"
)

// elementsFrame is a datastar-patch-elements event carrying html. With
// signalsFrame it is the one place where bytes for the wire are made: every
// payload is split into data lines at every line end an event-stream parser
// honours (sse.Lines: CRLF, LF and a lone CR, where datastar-go splits at LF
// only), and every frame passes sse.Check, so no content — a title, a
// reason, a warning — can end a line or an event early and start one of its
// own. For markup the split is lossless: an HTML parser turns CR and CRLF
// into LF anyway.
func elementsFrame(html []byte) []byte {
	return frame(datastar.EventTypePatchElements, datastar.ElementsDatalineLiteral, html)
}

// signalsFrame is a datastar-patch-signals event carrying a JSON object.
func signalsFrame(json []byte) []byte {
	return frame(datastar.EventTypePatchSignals, datastar.SignalsDatalineLiteral, json)
}

// frame encodes one event through datastar-go's Send, each data line of
// payload prefixed with the line's key. A frame that fails sse.Check is a
// programming error: it panics rather than send an event it did not mean.
func frame(typ datastar.EventType, key string, payload []byte) []byte {
	lines := sse.Lines(string(payload))
	for i, l := range lines {
		lines[i] = key + l
	}
	rec := &recorder{header: http.Header{}}
	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	if err := datastar.NewSSE(rec, req).Send(typ, lines); err != nil {
		panic(err) // a recorder never fails a write
	}
	b := bytes.Clone(rec.buf.Bytes())
	if err := sse.Check(b); err != nil {
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
