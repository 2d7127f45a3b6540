package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// Codex (0.169) runs a hook from hooks.json only once a human has trusted
// it: the TUI asks ("Hooks need review"), `codex exec` skips an untrusted
// hook without a word. Trusting appends to config.toml
//
//	[hooks.state."<hooks.json path>:<event>:<group>:<hook>"]
//	trusted_hash = "sha256:…"
//
// keyed by the hook's position (<event> in snake_case, the matcher group's
// and the hook's index) and its hash. The hash is Codex's
// command_hook_hash (codex-rs/hooks/src/engine/discovery.rs): SHA-256 of
// the canonical JSON (keys sorted, compact) of {"event_name": <event>,
// "matcher"?, "hooks": [{"type": "command", "command", "timeout", "async",
// "statusMessage"?}]}, with the timeout as Codex normalises it (600 when
// absent; SessionEnd's and Interrupt's clamped to 1…3). Checked against
// Codex 0.169.0's own "hooks/list" (codex app-server): every hook
// notch-web installs hashes the same.

// CodexTrustNote is what install and status say about Codex's trust step.
const CodexTrustNote = "Codex runs only hooks a human has trusted: open the Codex TUI once and trust them " +
	"(\"Hooks need review\" → trust); until then `codex exec` skips them without a word. " +
	"Trust is kept per hook position and command, so installing again with another --url or program asks again"

// codexEventLabel is Codex's snake_case name of an event in trust keys
// ("PreToolUse" → "pre_tool_use").
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexMatcherEvents are the events whose matcher Codex keeps (for the
// others it is dropped before hashing).
var codexMatcherEvents = map[string]bool{"pre_tool_use": true, "permission_request": true, "post_tool_use": true,
	"session_start": true, "pre_compact": true, "post_compact": true}

// codexHookHash is Codex's trust hash of a command hook as hooks.json holds
// it (h: the hook object, decoded), under event and matcher; ok is false
// for a hook Codex would not run as a command.
func codexHookHash(event, matcher string, h map[string]any) (string, bool) {
	cmd, _ := h["command"].(string)
	if h["type"] != "command" || strings.TrimSpace(cmd) == "" {
		return "", false
	}
	label := codexEventLabel(event)
	timeout := int64(600)
	if t, ok := h["timeout"].(float64); ok {
		timeout = int64(t)
	}
	timeout = max(timeout, 1)
	if label == "session_end" || label == "interrupt" {
		timeout = min(timeout, 3)
	}
	async, _ := h["async"].(bool)
	hook := map[string]any{"type": "command", "command": cmd, "timeout": timeout, "async": async}
	if s, ok := h["statusMessage"].(string); ok {
		hook["statusMessage"] = s
	}
	id := map[string]any{"event_name": label, "hooks": []any{hook}}
	if matcher != "" && codexMatcherEvents[label] {
		id["matcher"] = matcher
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(id); err != nil {
		return "", false
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// codexTrustKey is the key of a hook's state in config.toml.
func codexTrustKey(hooksPath, event string, group, hook int) string {
	return fmt.Sprintf("%s:%s:%d:%d", hooksPath, codexEventLabel(event), group, hook)
}

// codexHookState is one [hooks.state."…"] table of config.toml.
type codexHookState struct {
	trustedHash string
	disabled    bool
}

// readCodexHookStates reads the [hooks.state."<key>"] tables of a
// config.toml. ok is false when the file holds hook state in a form this
// reader does not follow (an inline table, dotted keys), so that a caller
// says "unknown" rather than guess.
func readCodexHookStates(src string) (map[string]codexHookState, bool) {
	lines, err := scanTOML(src)
	if err != nil {
		return nil, false
	}
	out := map[string]codexHookState{}
	for _, ln := range lines {
		if !ln.structural {
			continue
		}
		name, inState := strings.CutPrefix(ln.table, "hooks.state.")
		switch {
		case ln.header != "" || ln.key == "":
			continue
		case ln.table == "hooks" && (ln.key == "state" || strings.HasPrefix(ln.key, "state.")),
			ln.table == "hooks.state", ln.table == "" && strings.HasPrefix(ln.key, "hooks."):
			return nil, false // hook state written another way
		case !inState:
			continue
		}
		key, ok := tomlKey(name)
		if !ok {
			return nil, false
		}
		_, value, _ := strings.Cut(src[ln.start:ln.end], "=")
		value = strings.TrimSpace(strings.SplitN(value, "#", 2)[0])
		st := out[key]
		switch ln.key {
		case "trusted_hash":
			s, ok := tomlKey(value)
			if !ok {
				return nil, false
			}
			st.trustedHash = s
		case "enabled":
			st.disabled = value == "false"
		}
		out[key] = st
	}
	return out, true
}

// tomlKey reads a quoted TOML string: "basic" (with escapes) or 'literal'.
func tomlKey(s string) (string, bool) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return s[1 : len(s)-1], true
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		v, err := strconv.Unquote(s)
		return v, err == nil
	}
	return "", false
}

// CodexTrust is whether Codex trusts notch-web's hooks in a hooks.json.
type CodexTrust struct {
	Known     bool     // false: config.toml could not be read as far as trust goes
	Trusted   []string // events whose hook is trusted as it is
	Untrusted []string // never trusted
	Changed   []string // trusted once, changed since (another --url, another program)
	Disabled  []string // turned off in Codex
}

// codexTrust reads config.toml's hook state for the hooks f finds in
// hooks (the hooks.json at hooksPath).
func codexTrust(hooksPath string, hooks *node, f hooksFormat, configSrc string) CodexTrust {
	states, ok := readCodexHookStates(configSrc)
	if !ok {
		return CodexTrust{}
	}
	tr := CodexTrust{Known: true}
	for _, x := range f.find(hooks) {
		h, _ := x.value.(map[string]any)
		hash, ok := codexHookHash(x.event, x.matcher, h)
		if !ok {
			continue
		}
		st, ok := states[codexTrustKey(hooksPath, x.event, x.grp, x.hk)]
		switch {
		case ok && st.disabled:
			tr.Disabled = append(tr.Disabled, x.event)
		case !ok || st.trustedHash == "":
			tr.Untrusted = append(tr.Untrusted, x.event)
		case st.trustedHash != hash:
			tr.Changed = append(tr.Changed, x.event)
		default:
			tr.Trusted = append(tr.Trusted, x.event)
		}
	}
	return tr
}

// Notes says the trust in words, for status.
func (t CodexTrust) Notes() []string {
	if !t.Known {
		return []string{"Codex trust: unknown (config.toml keeps hook state in a form notch-web does not read). " + CodexTrustNote}
	}
	total := len(t.Trusted) + len(t.Untrusted) + len(t.Changed) + len(t.Disabled)
	if total == 0 {
		return nil
	}
	if len(t.Trusted) == total {
		return []string{fmt.Sprintf("Codex trust: all %d of notch-web's hooks are trusted", total)}
	}
	var out []string
	msg := fmt.Sprintf("Codex trust: %d of %d of notch-web's hooks trusted", len(t.Trusted), total)
	if len(t.Untrusted) > 0 {
		msg += "; not trusted yet: " + strings.Join(t.Untrusted, ", ")
	}
	if len(t.Changed) > 0 {
		msg += "; changed since trusted: " + strings.Join(t.Changed, ", ")
	}
	if len(t.Disabled) > 0 {
		msg += "; turned off in Codex: " + strings.Join(t.Disabled, ", ")
	}
	out = append(out, msg+". "+CodexTrustNote)
	return out
}

// codexTrustOf is Codex's trust in notch-web's hooks in the hooks.json at
// path, from config.toml beside it.
func (o Options) codexTrustOf(path string, f hooksFormat) CodexTrust {
	_, hf, err := readSettings(path)
	if err != nil || !hf.exists {
		return CodexTrust{}
	}
	d, err := newDoc(hf.src)
	if err != nil {
		return CodexTrust{}
	}
	hooks, err := hooksObject(d)
	if err != nil {
		return CodexTrust{}
	}
	config := ""
	if _, cf, err := readSettings(filepath.Join(filepath.Dir(path), "config.toml")); err == nil && cf.exists {
		config = string(cf.src)
	} else if err != nil {
		return CodexTrust{}
	}
	return codexTrust(path, hooks, f, config)
}
