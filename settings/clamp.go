package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ErrUnknownKey is returned for a key that is not one of the fourteen.
var ErrUnknownKey = errors.New("unknown setting")

// ValueError says why one key's value was refused.
type ValueError struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

func (e *ValueError) Error() string { return e.Key + ": " + e.Reason }

type kind int

const (
	kindNumber kind = iota
	kindInt
	kindBool
	kindEnum
	kindScreen
)

type spec struct {
	kind     kind
	min, max float64
	enum     []string
}

// Choices of the enumerated keys, named once for the code that tests them.
const (
	AnchorCenter = "top-center"
	AnchorLeft   = "top-left"
	AnchorRight  = "top-right"
	MotionAuto   = "auto"
	MotionOn     = "on"
	MotionOff    = "off"
	HoverGhost   = "ghost"
	HoverOpen    = "open"
	AlertsAll    = "all"
	AlertsNeeds  = "needs-you"
	AlertsOff    = "off"
	ScreenMain   = "primary"
	ScreenCursor = "cursor"
)

// key is one setting: its contract name, its domain, and the field of
// Settings that holds it. The table below is the one list of the fourteen:
// Keys, the specs, Get and apply all come from it.
type key struct {
	name  string
	spec  spec
	field func(*Settings) any // a pointer to the field: *float64, *int, *bool or *string
}

var table = []key{
	{"scale", spec{kind: kindNumber, min: 0.75, max: 2.0}, func(s *Settings) any { return &s.Scale }},
	{"screen", spec{kind: kindScreen}, func(s *Settings) any { return &s.Screen }},
	{"anchor", spec{kind: kindEnum, enum: []string{AnchorCenter, AnchorLeft, AnchorRight}}, func(s *Settings) any { return &s.Anchor }},
	{"maxRows", spec{kind: kindInt, min: 3, max: 10}, func(s *Settings) any { return &s.MaxRows }},
	{"hideFullscreen", spec{kind: kindBool}, func(s *Settings) any { return &s.HideFullscreen }},
	{"opacity", spec{kind: kindNumber, min: 0.35, max: 1.0}, func(s *Settings) any { return &s.Opacity }},
	{"motion", spec{kind: kindEnum, enum: []string{MotionAuto, MotionOn, MotionOff}}, func(s *Settings) any { return &s.Motion }},
	{"showProject", spec{kind: kindBool}, func(s *Settings) any { return &s.ShowProject }},
	{"showDone", spec{kind: kindBool}, func(s *Settings) any { return &s.ShowDone }},
	{"hoverMode", spec{kind: kindEnum, enum: []string{HoverGhost, HoverOpen}}, func(s *Settings) any { return &s.HoverMode }},
	{"holdMs", spec{kind: kindInt, min: 500, max: 4000}, func(s *Settings) any { return &s.HoldMs }},
	{"topEdgeOpens", spec{kind: kindBool}, func(s *Settings) any { return &s.TopEdgeOpens }},
	{"ghostOpacity", spec{kind: kindNumber, min: 0.05, max: 0.6}, func(s *Settings) any { return &s.GhostOpacity }},
	{"alerts", spec{kind: kindEnum, enum: []string{AlertsAll, AlertsNeeds, AlertsOff}}, func(s *Settings) any { return &s.Alerts }},
}

// Keys lists the fourteen settings in the contract's order.
var Keys = func() []string {
	ks := make([]string, len(table))
	for i, k := range table {
		ks[i] = k.name
	}
	return ks
}()

// byName indexes the table.
var byName = func() map[string]key {
	m := make(map[string]key, len(table))
	for _, k := range table {
		m[k.name] = k
	}
	return m
}()

// maxScreen bounds the 1-based display number; no desk has more.
const maxScreen = 64

// IsKey reports whether key is one of the fourteen settings.
func IsKey(key string) bool { _, ok := byName[key]; return ok }

// Range returns the clamp bounds of a numeric key (ok false for the others).
func Range(key string) (lo, hi float64, ok bool) {
	k, found := byName[key]
	if !found || (k.spec.kind != kindNumber && k.spec.kind != kindInt) {
		return 0, 0, false
	}
	return k.spec.min, k.spec.max, true
}

// Choices returns the allowed values of an enumerated key.
func Choices(key string) []string { return byName[key].spec.enum }

// ParseValue parses one raw value of key, as it arrives from JSON or YAML, and
// clamps it into the key's range. Numbers clamp; a value of the wrong type, an
// unknown choice or a non-finite number is refused with a *ValueError, so the
// caller can fall back to the layer beneath. The result has the Go type of the
// Settings field: float64, int, bool or string.
func ParseValue(key string, raw any) (any, error) {
	k, ok := byName[key]
	s := k.spec
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, key)
	}
	bad := func(format string, a ...any) error {
		return &ValueError{Key: key, Reason: fmt.Sprintf(format, a...)}
	}
	switch s.kind {
	case kindNumber, kindInt:
		f, err := toNumber(raw)
		if err != nil {
			return nil, bad("%v", err)
		}
		f = math.Min(math.Max(f, s.min), s.max)
		if s.kind == kindInt {
			return int(math.Round(f)), nil
		}
		return f, nil
	case kindBool:
		switch v := raw.(type) {
		case bool:
			return v, nil
		case string:
			switch strings.TrimSpace(v) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
		}
		return nil, bad("want true or false, got %s", describe(raw))
	case kindEnum:
		if v, ok := raw.(string); ok {
			for _, c := range s.enum {
				if strings.TrimSpace(v) == c {
					return c, nil
				}
			}
		}
		return nil, bad("want one of %s, got %s", strings.Join(quoteAll(s.enum), ", "), describe(raw))
	case kindScreen:
		var str string
		switch v := raw.(type) {
		case string:
			str = strings.TrimSpace(v)
		case float64, int, int64, uint64, json.Number:
			f, err := toNumber(v)
			if err == nil && f == math.Trunc(f) && math.Abs(f) < 1e6 {
				str = strconv.Itoa(int(f))
			}
		}
		if str == ScreenMain || str == ScreenCursor {
			return str, nil
		}
		if n, err := strconv.Atoi(str); err == nil && n >= 1 && n <= maxScreen && str == strconv.Itoa(n) {
			return str, nil
		}
		return nil, bad(`want "primary", "cursor" or a display number "1" … "%d", got %s`, maxScreen, describe(raw))
	}
	return nil, bad("unsupported")
}

func toNumber(raw any) (float64, error) {
	var f float64
	switch v := raw.(type) {
	case float64:
		f = v
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint64:
		f = float64(v)
	case json.Number:
		p, err := v.Float64()
		if err != nil {
			return 0, fmt.Errorf("want a number, got %q", string(v))
		}
		f = p
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, fmt.Errorf("want a number, got %s", describe(raw))
		}
		f = p
	default:
		return 0, fmt.Errorf("want a number, got %s", describe(raw))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a finite number, got %v", f)
	}
	return f, nil
}

func describe(raw any) string {
	switch v := raw.(type) {
	case nil:
		return "null"
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case float64, int, int64, uint64, json.Number:
		return fmt.Sprint(v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", raw)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Partial is one layer: only the keys that layer sets, each already parsed
// and clamped (float64, int, bool or string).
type Partial map[string]any

// Warning reports a value a layer's file carried that was ignored, and why.
type Warning struct {
	File    string `json:"file"`
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
	// clamped marks a value that was used, clamped into range: nothing of
	// the file was lost, so a rewrite need not keep its bytes aside.
	clamped bool
}

// Clamp is the contract's clampSettings: it turns a layer's raw key/value
// map into a Partial. Out-of-range values clamp; unknown keys and values that
// do not parse are left out (so the layer beneath shows through) and reported
// as warnings against file.
func Clamp(file string, raw map[string]any) (Partial, []Warning) {
	out := Partial{}
	var warns []Warning
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !IsKey(k) {
			warns = append(warns, Warning{File: file, Key: k, Message: fmt.Sprintf("unknown setting %q ignored", k)})
			continue
		}
		v, err := ParseValue(k, raw[k])
		if err != nil {
			var ve *ValueError
			msg := err.Error()
			if errors.As(err, &ve) {
				msg = ve.Reason
			}
			warns = append(warns, Warning{File: file, Key: k, Message: msg + "; using the layer beneath"})
			continue
		}
		if from, ok := outOfRange(k, raw[k]); ok {
			warns = append(warns, Warning{File: file, Key: k, Message: fmt.Sprintf("%s %s → %v: out of range %v … %v, clamped",
				k, from, v, byName[k].spec.min, byName[k].spec.max), clamped: true})
		}
		out[k] = v
	}
	return out, warns
}

// outOfRange reports whether raw (a value that parses) lies outside key's
// clamp range, and how it read.
func outOfRange(key string, raw any) (string, bool) {
	sp := byName[key].spec
	if sp.kind != kindNumber && sp.kind != kindInt {
		return "", false
	}
	f, err := toNumber(raw)
	if err != nil || (f >= sp.min && f <= sp.max) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// apply sets key on s from a value ParseValue returned (of the field's
// type); an unknown key changes nothing.
func (s *Settings) apply(name string, v any) {
	k, ok := byName[name]
	if !ok {
		return
	}
	switch p := k.field(s).(type) {
	case *float64:
		*p = v.(float64)
	case *int:
		*p = v.(int)
	case *bool:
		*p = v.(bool)
	case *string:
		*p = v.(string)
	}
}

// Source names the layer a key's effective value came from.
const (
	SourceDefault = "default"
	SourceRow     = "row"
	SourcePane    = "pane"
)

// Compose stacks the layers: Defaults, then row, then pane, each beating the
// one before. It returns the effective settings and, per key, the layer that
// decided it.
func Compose(row, pane Partial) (Settings, map[string]string) {
	s := Defaults
	src := make(map[string]string, len(Keys))
	for _, k := range Keys {
		src[k] = SourceDefault
		if v, ok := row[k]; ok {
			s.apply(k, v)
			src[k] = SourceRow
		}
		if v, ok := pane[k]; ok {
			s.apply(k, v)
			src[k] = SourcePane
		}
	}
	return s, src
}

// Get returns the value of key in s (nil for an unknown key).
func (s Settings) Get(name string) any {
	k, ok := byName[name]
	if !ok {
		return nil
	}
	switch p := k.field(&s).(type) {
	case *float64:
		return *p
	case *int:
		return *p
	case *bool:
		return *p
	case *string:
		return *p
	}
	return nil
}

// Clamped returns s with every key brought into its domain, as a reader of
// a document from elsewhere must (docs/contract.md rule 4: the window clamps what it is
// given): numbers clamp, a value that does not parse takes its default.
func (s Settings) Clamped() Settings {
	out := Defaults
	for _, k := range Keys {
		if v, err := ParseValue(k, s.Get(k)); err == nil {
			out.apply(k, v)
		}
	}
	return out
}
