package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/notch-web/notch-web/state"
)

// The small bodies of the board's and the pane's writes, parsed strictly:
// one JSON object, its known fields only, nothing after it.

// sessionRequest is the body of /finish and /open.
type sessionRequest struct {
	SessionID string `json:"sessionId"`
}

// windowRequest is the body of POST /agents-notch/window.
type windowRequest struct {
	Start bool `json:"start"`
}

// decodeStrict decodes one JSON object into v, refusing unknown fields and
// anything after the object.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// parseSessionRequest reads {"sessionId": "…"}: an id of 1 to 200 bytes of
// text without control characters, as the event vocabulary's.
func parseSessionRequest(body []byte) (string, error) {
	var req sessionRequest
	if err := decodeStrict(body, &req); err != nil {
		return "", fmt.Errorf(`want {"sessionId": "…"}: %v`, err)
	}
	id := strings.TrimSpace(req.SessionID)
	if !state.ValidSessionID(id) {
		return "", fmt.Errorf("sessionId must be 1 to %d bytes of text", state.MaxSessionID)
	}
	return id, nil
}

// parseWindowRequest reads {"start": true}, the only thing the window route
// is asked.
func parseWindowRequest(body []byte) error {
	var req windowRequest
	if err := decodeStrict(body, &req); err != nil || !req.Start {
		return errors.New(`want {"start": true}`)
	}
	return nil
}
