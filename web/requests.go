package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/state"
)

// readBody reads a bounded body (the Write lock set the bound) and refuses an
// empty one: Echo's Bind would silently do nothing with it.
func readBody(c echo.Context) ([]byte, error) {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, "body too large")
		}
		return nil, fail(http.StatusBadRequest, "could not read the body", err)
	}
	if len(body) == 0 {
		return nil, echo.NewHTTPError(http.StatusBadRequest, "empty body: send a JSON object")
	}
	return body, nil
}

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
// anything after the object (internal/jsonx, the one rule).
func decodeStrict(body []byte, v any) error {
	if err := jsonx.DecodeOne(body, v, jsonx.Options{Strict: true}); err != nil {
		return errors.New(jsonx.Reason(err))
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
