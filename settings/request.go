package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/notch-web/notch-web/internal/jsonx"
)

// RequestError is a POST body the service refuses. Unknown names the keys
// that are not settings; Invalid maps a key to why its value was refused.
// Nothing is written when a request is refused.
type RequestError struct {
	Message string            `json:"error"`
	Unknown []string          `json:"unknown,omitempty"`
	Invalid map[string]string `json:"invalid,omitempty"`
}

func (e *RequestError) Error() string { return e.Message }

// ErrEmptyBody is returned for a body with nothing in it.
var ErrEmptyBody = errors.New("empty body: send a JSON object of settings, or {\"reset\": true}")

// ParseRequest parses a POST /agents-notch/settings body: a JSON object whose
// keys are among the fourteen (a value is stored clamped; null clears that
// key's override) plus an optional "reset": true that clears the pane layer
// first. The request is all-or-nothing: any unknown key, any value that does
// not parse, refuses the whole body with a *RequestError naming them.
func ParseRequest(body []byte) (Change, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Change{}, &RequestError{Message: ErrEmptyBody.Error()}
	}
	var raw map[string]json.RawMessage
	if err := jsonx.DecodeOne(body, &raw, jsonx.Options{UseNumber: true}); errors.Is(err, jsonx.ErrTrailing) {
		return Change{}, &RequestError{Message: "body has " + err.Error()}
	} else if err != nil {
		return Change{}, &RequestError{Message: "body is not a JSON object: " + jsonx.Reason(err)}
	}
	if raw == nil {
		return Change{}, &RequestError{Message: "body is not a JSON object: got null"}
	}
	var c Change
	c.Set = Partial{}
	re := &RequestError{Invalid: map[string]string{}}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		msg := raw[k]
		if k == "reset" {
			var b bool
			if err := json.Unmarshal(msg, &b); err != nil {
				re.Invalid[k] = "want true or false"
				continue
			}
			c.Reset = b
			continue
		}
		if !IsKey(k) {
			re.Unknown = append(re.Unknown, k)
			continue
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(msg))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			re.Invalid[k] = "not JSON"
			continue
		}
		if v == nil {
			c.Clear = append(c.Clear, k)
			continue
		}
		pv, err := ParseValue(k, v)
		if err != nil {
			var ve *ValueError
			if errors.As(err, &ve) {
				re.Invalid[k] = ve.Reason
			} else {
				re.Invalid[k] = err.Error()
			}
			continue
		}
		c.Set[k] = pv
	}
	switch {
	case len(re.Unknown) > 0:
		re.Message = "unknown setting(s): " + strings.Join(re.Unknown, ", ")
	case len(re.Invalid) > 0:
		parts := make([]string, 0, len(re.Invalid))
		for _, k := range keys {
			if why, ok := re.Invalid[k]; ok {
				parts = append(parts, k+": "+why)
			}
		}
		re.Message = "refused: " + strings.Join(parts, "; ")
	case !c.Reset && len(c.Set) == 0 && len(c.Clear) == 0:
		re.Message = `the body names no setting: send one of ` + strings.Join(Keys, ", ") + `, or {"reset": true}`
	default:
		return c, nil
	}
	if len(re.Invalid) == 0 {
		re.Invalid = nil
	}
	return Change{}, re
}
