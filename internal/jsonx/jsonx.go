// Package jsonx holds notch-web's one rule for a body or a file that must be
// exactly one JSON value: DecodeOne decodes it and refuses anything after
// it and any object that gives a key twice (Duplicate, which the hook
// payloads' own decoder applies too), and Reason says why a decode failed
// in words fit for a 400 or a warning. Every parser of outside JSON (POST bodies, settings.json, event
// lines) goes through it, so all of them refuse the same things the same
// way.
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// ErrTrailing: something follows the JSON value (a second object, a stray
// "}", text).
var ErrTrailing = errors.New("trailing data after the JSON object")

// Options are the decoder's settings.
type Options struct {
	// UseNumber keeps numbers as json.Number (for values clamped later).
	UseNumber bool
	// Strict refuses fields v does not have (a typo never does nothing).
	Strict bool
}

// DecodeOne decodes data, which must be exactly one JSON value, into v.
// Its error is the decoder's (see Reason), ErrTrailing, or a
// *DuplicateError: an object, at any depth, gives a key twice — into a
// struct as its fields take keys (CaseFold: "id" and "ID" are one), into
// anything else byte for byte (Exact: a map keeps both).
func DecodeOne(data []byte, v any, o Options) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if o.UseNumber {
		dec.UseNumber()
	}
	if o.Strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	// Token, not More: More is false before a stray "}" or "]".
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailing
	}
	fold := Exact
	if t := reflect.TypeOf(v); t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		fold = CaseFold
	}
	return Duplicate(data, fold)
}

// Reason is err from DecodeOne in a person's words, without Go's "json: "
// prefix: where the syntax broke, which field had the wrong kind of value,
// or that the input stopped early.
func Reason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("%s is a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return "got a JSON " + te.Value
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated JSON"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
