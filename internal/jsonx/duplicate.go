package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// ErrDuplicate: an object gives the same key twice. Go's decoder keeps the
// last, a JavaScript reader too, another reader the first: what one side
// checked need not be what the other acts on, so it is refused like every
// other ambiguity. Errors from Duplicate wrap it (*DuplicateError).
var ErrDuplicate = errors.New("a key is given twice")

// DuplicateError names the key given twice and where its second one is.
type DuplicateError struct {
	Key    string
	Offset int // the byte where the second key starts
}

// Error says which key, and where.
func (e *DuplicateError) Error() string {
	return fmt.Sprintf("the key %q is given twice in one object (at byte %d)", e.Key, e.Offset)
}

// Unwrap lets errors.Is see ErrDuplicate.
func (e *DuplicateError) Unwrap() error { return ErrDuplicate }

// Fold says which keys are one key.
type Fold bool

const (
	// Exact: keys equal byte for byte once unescaped ("a" and "\u0061";
	// "a" and "A" are two): what a map or a JavaScript reader keys on.
	Exact Fold = false
	// CaseFold: keys equal as encoding/json matches a struct's fields
	// (case-insensitively, "ſ" as "s", "K" as "k"): "sessionId" and
	// "SessionID" would both set the one field.
	CaseFold Fold = true
)

// Duplicate reports the first key any object in data gives twice (at any
// depth), as a *DuplicateError; nil when there is none. data is meant to
// be JSON a decoder has taken; anything else is read as far as it goes,
// never a panic.
func Duplicate(data []byte, fold Fold) error {
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]struct{}
	}
	var stack []frame
	for i := 0; i < len(data); {
		switch data[i] {
		case '{':
			stack = append(stack, frame{obj: true, wantKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].wantKey = true
			}
		case '"':
			end, escaped := stringEnd(data, i)
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				top := &stack[n-1]
				top.wantKey = false
				key := string(data[i+1 : max(end-1, i+1)])
				if escaped {
					_ = json.Unmarshal(data[i:end], &key) // invalid: kept raw
				}
				if fold == CaseFold {
					key = foldKey(key)
				}
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				if _, dup := top.keys[key]; dup {
					shown := string(data[i+1 : max(end-1, i+1)])
					if escaped {
						_ = json.Unmarshal(data[i:end], &shown)
					}
					return &DuplicateError{Key: shown, Offset: i}
				}
				top.keys[key] = struct{}{}
			}
			i = end
			continue
		}
		i++
	}
	return nil
}

// stringEnd is the index just past the string that starts at data[i] (a
// '"'), or len(data) if it never ends, and whether it holds an escape.
func stringEnd(data []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(data), escaped
}

// foldKey is key as encoding/json compares a key with a field's name: each
// rune replaced by the smallest of its case-fold set (ASCII upper-cased).
func foldKey(key string) string {
	out := make([]byte, 0, len(key))
	for _, r := range key {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			out = append(out, byte(r))
			continue
		}
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}
