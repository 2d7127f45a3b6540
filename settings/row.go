package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"go.yaml.in/yaml/v3"
)

// DefaultRowID is the plugin row's id in cordis.patch.yml.
const DefaultRowID = "agents-notch"

// MaxPatchBytes bounds a patch file; a larger one is refused, not read.
const MaxPatchBytes = 4 << 20

// ErrNotPatch is returned for YAML that is not a patch file (a top-level list).
var ErrNotPatch = errors.New("not a patch file: want a top-level list of rows")

// RowContext is what the row says of the route's context window. Budget is
// nil unless the row states the real window (docs/contract.md rule 1: never guessed).
type RowContext struct {
	Budget *int64  `json:"budget"`
	HotAt  float64 `json:"hotAt"`
}

// DefaultHotAt is where the context bar turns amber when the row is silent.
const DefaultHotAt = 0.5

// ValidHotAt reports whether f can be a hotAt: a fraction in (0, 1]. It is
// the one check of hotAt's range; the row's parser, the snapshot and a
// followed document all apply it, so what state.json publishes is what the
// board draws.
func ValidHotAt(f float64) bool { return f > 0 && f <= 1 }

// Row is the plugin row's config as the patch files leave it.
type Row struct {
	// Found reports whether any patch file targets the row.
	Found bool
	// Config holds the 14 keys the row sets, clamped.
	Config Partial
	// Context and Retire are the row's other facts for state.json.
	Context RowContext
	Retire  string
}

// rowEntry is what one patch file says of the row: its operations on the
// row in order (ops, what the layers fold), and what the file alone leaves
// of it (found, hasConfig, config: the last entry that targets the row,
// its config raw).
type rowEntry struct {
	found     bool
	hasConfig bool
	config    map[string]any
	ops       []rowOp
	ids       []string // every row id the file names, in order, once each
}

// rowOp is one entry of a patch file that targets the row: an insert (at
// the root, or into a group row's config) or an id-targeted patch.
type rowOp struct {
	insert bool
	// name is an insert's name for the row, or the name a patch asserts
	// ("" none).
	name      string
	hasConfig bool
	config    map[string]any
}

// rowFold is the row as the layers read so far leave it (the seed's patch
// grammar): an insert makes the row, with its name; an id-targeted patch
// replaces config wholesale (no deep merge), or leaves it without one;
// a patch asserting a name the row does not have is skipped.
type rowFold struct {
	found, hasConfig bool
	config           map[string]any
	file             string // the file whose config stands
	name             string // the name the row was inserted with; "" unknown
}

// apply folds one file's ops in, and returns a warning for each patch it
// skipped. A name can only be checked against a row inserted in a layer
// read here: the plugin's own bundle patch, which inserts it under the
// harness, is not one, and then the patch applies.
func (f *rowFold) apply(file string, ops []rowOp) []Warning {
	var skipped []Warning
	for _, op := range ops {
		if op.insert {
			f.found, f.name = true, op.name
		} else if op.name != "" && f.name != "" && op.name != f.name {
			skipped = append(skipped, Warning{File: file, Key: "name", Message: fmt.Sprintf(
				"this patch asserts the row is named %s, but it was inserted as %q: skipped, as the harness skips it", describe(op.name), f.name)})
			continue
		}
		f.found = true
		if op.hasConfig {
			f.hasConfig, f.config, f.file = true, op.config, file
		}
	}
	return skipped
}

// parsePatch reads one patch file's entries that target rowID: `- id:
// <rowID>` (a patch), an `- insert:` whose row (or one of whose rows) has
// that id, and the same insert under a group row (`- id: <group>` with
// `insert:`).
func parsePatch(data []byte, rowID string) (rowEntry, error) {
	var doc any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// An empty or comment-only file decodes as io.EOF: report it as empty.
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return rowEntry{}, fmt.Errorf("parsing YAML: %w", err)
	}
	list, ok := doc.([]any)
	if !ok {
		if doc == nil {
			return rowEntry{}, fmt.Errorf("%w (the file is empty; use [] for no patch)", ErrNotPatch)
		}
		return rowEntry{}, ErrNotPatch
	}
	var out rowEntry
	op := func(m map[string]any, insert bool) {
		o := rowOp{insert: insert, name: nameOf(m["name"])}
		if c, ok := m["config"]; ok {
			o.hasConfig = true
			o.config, _ = c.(map[string]any)
			if c != nil && o.config == nil {
				o.config = map[string]any{"\x00": c} // reported by buildRow as a bad config
			}
		}
		out.ops = append(out.ops, o)
	}
	seen := map[string]bool{}
	note := func(id string) {
		if id != "" && !seen[id] && len(out.ids) < 20 {
			seen[id] = true
			out.ids = append(out.ids, id)
		}
	}
	inserted := func(ins any) {
		rows, ok := ins.([]any)
		if !ok {
			rows = []any{ins}
		}
		for _, r := range rows {
			if rm, ok := r.(map[string]any); ok {
				id, _ := rm["id"].(string)
				note(id)
				if id == rowID {
					op(rm, true)
				}
			}
		}
	}
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if id, _ := m["id"].(string); id != "" {
			note(id)
			if id == rowID {
				op(m, false)
			}
		}
		if ins, ok := m["insert"]; ok {
			inserted(ins)
		}
	}
	var alone rowFold
	alone.apply("", out.ops)
	out.found, out.hasConfig, out.config = alone.found, alone.hasConfig, alone.config
	return out, nil
}

// nameOf is a row's name as the harness tests it: a truthy value. Text is
// the name; another truthy value (true, a number, a mapping) is a name no
// row has; a falsy one (absent, "", false, 0, null) asserts nothing.
func nameOf(v any) string {
	switch n := v.(type) {
	case nil:
		return ""
	case string:
		return n
	case bool:
		if !n {
			return ""
		}
	case int:
		if n == 0 {
			return ""
		}
	case float64:
		if n == 0 || math.IsNaN(n) {
			return ""
		}
	}
	return fmt.Sprintf("\x00%v", v) // truthy, and never a row's name
}

// buildRow turns the winning entry's raw config into a Row, with warnings for
// everything ignored.
func buildRow(file string, e rowEntry) (Row, []Warning) {
	r := Row{Found: e.found, Config: Partial{}, Context: RowContext{HotAt: DefaultHotAt}, Retire: "route"}
	if !e.hasConfig {
		return r, nil
	}
	raw := make(map[string]any, len(e.config))
	var warns []Warning
	for k, v := range e.config {
		switch k {
		case "\x00":
			warns = append(warns, Warning{File: file, Key: "config", Message: "config is not a mapping; ignored"})
		case "context":
			var w []Warning
			r.Context, w = parseContext(file, v)
			warns = append(warns, w...)
		case "retire":
			if s, ok := v.(string); ok && (s == "route" || s == "timer") {
				r.Retire = s
			} else {
				warns = append(warns, Warning{File: file, Key: "retire", Message: fmt.Sprintf(`want "route" or "timer", got %s; using "route"`, describe(v))})
			}
		default:
			raw[k] = v
		}
	}
	cfg, w := Clamp(file, raw)
	r.Config = cfg
	warns = append(warns, w...)
	sortWarnings(warns)
	return r, warns
}

func parseContext(file string, v any) (RowContext, []Warning) {
	c := RowContext{HotAt: DefaultHotAt}
	m, ok := v.(map[string]any)
	if !ok {
		return c, []Warning{{File: file, Key: "context", Message: "context is not a mapping; budget unknown"}}
	}
	var warns []Warning
	for k := range m {
		if k != "budget" && k != "hotAt" {
			warns = append(warns, Warning{File: file, Key: "context." + k, Message: fmt.Sprintf("unknown key %q under context ignored (it takes budget and hotAt)", k)})
		}
	}
	if b, ok := m["budget"]; ok && b != nil {
		f, err := toNumber(b)
		if err != nil || f < 1 || f != math.Trunc(f) || f > 1e12 {
			warns = append(warns, Warning{File: file, Key: "context.budget", Message: fmt.Sprintf("want a whole number of tokens, got %s; budget unknown", describe(b))})
		} else {
			n := int64(f)
			c.Budget = &n
		}
	}
	if h, ok := m["hotAt"]; ok && h != nil {
		f, err := toNumber(h)
		if err != nil || !ValidHotAt(f) {
			warns = append(warns, Warning{File: file, Key: "context.hotAt", Message: fmt.Sprintf("want a fraction in (0, 1], got %s; using %v", describe(h), DefaultHotAt)})
		} else {
			c.HotAt = f
		}
	}
	return c, warns
}

func sortWarnings(w []Warning) {
	sort.SliceStable(w, func(i, j int) bool {
		if w[i].File != w[j].File {
			return w[i].File < w[j].File
		}
		return w[i].Key < w[j].Key
	})
}
