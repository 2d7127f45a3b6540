package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/notch-web/notch-web/internal/fsx"
)

// MaxStateFile bounds what ReadFile reads. A real document of 40 rows is a
// few tens of KiB; anything far bigger is not a state.json.
const MaxStateFile = 4 << 20

// Encode renders a document as state.json: compact JSON and a trailing
// newline. Sessions is always an array, never null.
func Encode(d Document) ([]byte, error) {
	if d.Sessions == nil {
		d.Sessions = []Session{}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encoding state.json: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode parses a state.json. It reads schema 4 and schema 3 (whose rows
// lack errorStreak and approvedAt: they decode as 0 and null, which the
// contract reads as "not known"), keeps the schema it read, and refuses any
// other schema with ErrSchema. It needs schema and wallMs (without wallMs
// there is no heartbeat to judge); anything empty, truncated, not JSON or of
// the wrong shape is refused with ErrMalformed. Unknown fields are ignored,
// as a reader one step behind its writer should. It never panics.
func Decode(data []byte) (Document, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, bom))
	if len(trimmed) == 0 {
		return Document{}, fmt.Errorf("%w: empty", ErrMalformed)
	}
	if trimmed[0] != '{' {
		return Document{}, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	var head struct {
		Schema *int   `json:"schema"`
		WallMs *int64 `json:"wallMs"`
	}
	if err := json.Unmarshal(trimmed, &head); err != nil {
		return Document{}, malformed(err)
	}
	if head.Schema == nil {
		return Document{}, fmt.Errorf("%w: no schema", ErrMalformed)
	}
	if s := *head.Schema; s != 3 && s != Schema {
		return Document{}, fmt.Errorf("%w: schema %d (this reader knows 3 and %d)", ErrSchema, s, Schema)
	}
	if head.WallMs == nil {
		return Document{}, fmt.Errorf("%w: no wallMs", ErrMalformed)
	}
	var d Document
	if err := json.Unmarshal(trimmed, &d); err != nil {
		return Document{}, malformed(err)
	}
	if d.Sessions == nil {
		d.Sessions = []Session{}
	}
	return d, nil
}

func malformed(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input":
		return fmt.Errorf("%w: truncated", ErrMalformed)
	case errors.As(err, &syn):
		return fmt.Errorf("%w: not valid JSON at byte %d: %v", ErrMalformed, syn.Offset, syn)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: %s is a JSON %s, want %s", ErrMalformed, typ.Field, typ.Value, typ.Type)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// ReadFile reads and decodes a state.json (see Decode), refusing a file
// larger than MaxStateFile (ErrTooLarge).
func ReadFile(path string) (Document, error) {
	data, err := fsx.ReadFileLimit(path, MaxStateFile)
	if err != nil {
		return Document{}, err
	}
	d, err := Decode(data)
	if err != nil {
		return Document{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return d, nil
}
