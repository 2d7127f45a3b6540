package install

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// "hooks install <agent> --otel" points the agent's own OpenTelemetry at
// the host's receiver (host/otlp, docs/otel.md), in the agent's own
// settings, with the same care as the hooks (merge, backup, atomic, mode
// kept). Only the logs are asked for: the board maps log events (a model
// call's tokens and cost, a failed call), never metrics or spans.
//
//	claude-code  the settings file's "env": CLAUDE_CODE_ENABLE_TELEMETRY=1,
//	             OTEL_LOGS_EXPORTER gains "otlp", and the logs' own
//	             OTEL_EXPORTER_OTLP_LOGS_PROTOCOL / _ENDPOINT — so a
//	             collector of the user's for metrics or traces
//	             (OTEL_EXPORTER_OTLP_ENDPOINT) keeps them
//	codex        config.toml's [otel] exporter (Codex has one log exporter)
//	gemini       settings.json's "telemetry" (Gemini CLI has one endpoint
//	             for all three signals; logPrompts off)
//
// An exporter of the user's that the agent would stop feeding (Codex's
// [otel] exporter, Gemini CLI's otlpEndpoint or outfile, Claude Code's logs
// already going to another OTLP endpoint) is never replaced silently:
// Install refuses with ErrOtherCollector, naming it, unless Force.

// OtelPath is where the host takes OTLP/HTTP; an exporter appends
// /v1/logs (Claude Code and Codex are given the whole logs URL).
const OtelPath = "/agents-notch/otlp"

// ErrOtherCollector is the user's own telemetry exporter, which --otel
// would replace: refused unless Options.Force.
var ErrOtherCollector = errors.New("the agent's telemetry goes to a collector of the user's")

// otelLogsURL is the logs endpoint on the host at base.
func otelLogsURL(base string) string { return strings.TrimRight(base, "/") + OtelPath + "/v1/logs" }

// ownOtelURL reports whether u is an endpoint of notch-web's receiver, on
// any address: its path is OtelPath, or OtelPath/v1/logs.
func ownOtelURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	path := strings.TrimRight(p.Path, "/")
	return path == OtelPath || path == OtelPath+"/v1/logs"
}

// claudeOtelEnv is what --otel puts in Claude Code's "env".
func claudeOtelEnv(base string) [][2]string {
	return [][2]string{
		{"CLAUDE_CODE_ENABLE_TELEMETRY", "1"},
		{"OTEL_LOGS_EXPORTER", "otlp"},
		{"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/protobuf"},
		{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", otelLogsURL(base)},
	}
}

func other(what string) error { return fmt.Errorf("%w: %s", ErrOtherCollector, what) }

// setClaudeOtel points Claude Code's logs at the host, in the settings'
// env block.
func setClaudeOtel(src []byte, base string, force bool) ([]byte, error) {
	d, err := newObjectDoc(src)
	if err != nil {
		return nil, err
	}
	env := d.root.get("env")
	if env != nil && env.kind != kObject {
		return nil, fmt.Errorf("%w: \"env\" is not an object", ErrSyntax)
	}
	str := func(k string) string {
		if n := env.get(k); n != nil && n.kind == kString {
			return n.str
		}
		return ""
	}
	ep := str("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
	logsToOTLP := hasWord(str("OTEL_LOGS_EXPORTER"), "otlp")
	switch {
	case force:
	case ep != "" && !ownOtelURL(ep):
		return nil, other("its logs go to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=" + ep)
	case ep == "" && logsToOTLP:
		to := str("OTEL_EXPORTER_OTLP_ENDPOINT")
		if to == "" {
			to = "the OTLP default (localhost:4318)"
		}
		return nil, other("its logs go to " + to)
	}
	for _, kv := range claudeOtelEnv(base) {
		v := kv[1]
		if kv[0] == "OTEL_LOGS_EXPORTER" && str(kv[0]) != "" && !force {
			v = addWord(str(kv[0]), "otlp") // "console" becomes "console,otlp"
		}
		if err := d.setString([]string{"env"}, kv[0], v); err != nil {
			return nil, err
		}
	}
	return d.src, nil
}

// removeClaudeOtel takes out what setClaudeOtel put in, when the logs'
// endpoint is notch-web's: the endpoint and protocol, "otlp" from the logs
// exporter, and CLAUDE_CODE_ENABLE_TELEMETRY unless another exporter is
// left. An env left empty goes.
func removeClaudeOtel(src []byte) ([]byte, error) {
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	env := d.root.get("env")
	ep := env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
	if env == nil || env.kind != kObject || ep == nil || ep.kind != kString || !ownOtelURL(ep.str) {
		return src, nil
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL"} {
		if err := d.removeKey([]string{"env"}, k); err != nil {
			return nil, err
		}
	}
	left := ""
	if n := d.root.get("env").get("OTEL_LOGS_EXPORTER"); n != nil && n.kind == kString {
		left = removeWord(n.str, "otlp")
		if left == "" {
			err = d.removeKey([]string{"env"}, "OTEL_LOGS_EXPORTER")
		} else {
			err = d.setString([]string{"env"}, "OTEL_LOGS_EXPORTER", left)
		}
		if err != nil {
			return nil, err
		}
	}
	metrics := d.root.get("env").get("OTEL_METRICS_EXPORTER")
	if left == "" && metrics == nil {
		if err := d.removeKey([]string{"env"}, "CLAUDE_CODE_ENABLE_TELEMETRY"); err != nil {
			return nil, err
		}
	}
	if env := d.root.get("env"); env != nil && size(env) == 0 {
		if err := d.removeKey(nil, "env"); err != nil {
			return nil, err
		}
	}
	return d.src, nil
}

// setGeminiOtel points Gemini CLI's telemetry at the host.
func setGeminiOtel(src []byte, base string, force bool) ([]byte, error) {
	d, err := newObjectDoc(src)
	if err != nil {
		return nil, err
	}
	tel := d.root.get("telemetry")
	if tel != nil && tel.kind != kObject {
		return nil, fmt.Errorf("%w: \"telemetry\" is not an object", ErrSyntax)
	}
	if !force {
		if n := tel.get("otlpEndpoint"); n != nil && n.kind == kString && n.str != "" && !ownOtelURL(n.str) {
			return nil, other("telemetry.otlpEndpoint is " + n.str)
		}
		if n := tel.get("outfile"); n != nil && n.kind == kString && n.str != "" {
			return nil, other("telemetry.outfile is " + n.str)
		}
		if n := tel.get("target"); n != nil && n.kind == kString && n.str == "gcp" {
			return nil, other("telemetry.target is gcp")
		}
	}
	if err := d.setLiteral([]string{"telemetry"}, "enabled", true); err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{{"target", "local"}, {"otlpEndpoint", strings.TrimRight(base, "/") + OtelPath}, {"otlpProtocol", "http"}} {
		if err := d.setString([]string{"telemetry"}, kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if err := d.setLiteral([]string{"telemetry"}, "logPrompts", false); err != nil {
		return nil, err
	}
	if force && tel.get("outfile") != nil {
		if err := d.removeKey([]string{"telemetry"}, "outfile"); err != nil {
			return nil, err
		}
	}
	return d.src, nil
}

// removeGeminiOtel takes "telemetry" out when its endpoint is notch-web's.
func removeGeminiOtel(src []byte) ([]byte, error) {
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	tel := d.root.get("telemetry")
	ep := tel.get("otlpEndpoint")
	if tel == nil || tel.kind != kObject || ep == nil || ep.kind != kString || !ownOtelURL(ep.str) {
		return src, nil
	}
	for _, k := range []string{"enabled", "target", "otlpEndpoint", "otlpProtocol", "logPrompts"} {
		if err := d.removeKey([]string{"telemetry"}, k); err != nil {
			return nil, err
		}
	}
	if tel := d.root.get("telemetry"); tel != nil && size(tel) == 0 {
		if err := d.removeKey(nil, "telemetry"); err != nil {
			return nil, err
		}
	}
	return d.src, nil
}

// codexOtelLine is Codex's [otel] exporter line for the host at base.
func codexOtelLine(base string) string {
	return `exporter = { otlp-http = { endpoint = ` + tomlString(otelLogsURL(base)) + `, protocol = "binary" } }`
}

// setCodexOtel sets Codex's [otel] exporter to the host: the table added
// at the end, or its exporter line added or (ours, or with force) replaced.
// Another exporter is ErrOtherCollector; an [otel] the line reader cannot
// follow (a sub-table, a key over several lines) is ErrTOMLLayout.
func setCodexOtel(src, base string, force bool) (string, error) {
	lines, err := scanTOML(src)
	if err != nil {
		return "", err
	}
	want := codexOtelLine(base)
	nl := "\n"
	if strings.Contains(src, "\r\n") {
		nl = "\r\n"
	}
	header, exporter := -1, -1
	for i, ln := range lines {
		switch {
		case ln.header != "" && (ln.header == "otel" || strings.HasPrefix(ln.header, "otel.")):
			if ln.header != "otel" {
				return "", fmt.Errorf("%w: it has an [%s] table", ErrTOMLLayout, ln.header)
			}
			header = i
		case ln.key == "otel" || strings.HasPrefix(ln.key, "otel."):
			return "", fmt.Errorf("%w: it sets %s at the top level", ErrTOMLLayout, ln.key)
		case ln.table == "otel" && ln.key == "exporter":
			exporter = i
		}
	}
	if exporter >= 0 {
		ln := lines[exporter]
		text := src[ln.start:ln.end]
		if exporter+1 < len(lines) && !lines[exporter+1].structural {
			return "", fmt.Errorf("%w: its [otel] exporter spans several lines", ErrTOMLLayout)
		}
		if strings.TrimSpace(text) == want {
			return src, nil
		}
		if !force && !strings.Contains(text, OtelPath+"/v1/logs") {
			return "", other("config.toml's [otel] " + strings.TrimSpace(text))
		}
		return src[:ln.start] + want + src[ln.end:], nil
	}
	if header >= 0 {
		at := lines[header].end
		return src[:at] + nl + want + src[at:], nil
	}
	out := strings.TrimRight(src, "\r\n")
	if out != "" {
		out += nl + nl
	}
	return out + "[otel]" + nl + want + nl, nil
}

// removeCodexOtel takes out our [otel] exporter line, and the [otel]
// header when nothing else is in the table.
func removeCodexOtel(src string) (string, error) {
	lines, err := scanTOML(src)
	if err != nil {
		return "", err
	}
	header, exporter, others := -1, -1, 0
	for i, ln := range lines {
		switch {
		case ln.header == "otel":
			header = i
		case ln.table == "otel" && ln.key == "exporter":
			exporter = i
		case ln.table == "otel" && ln.key != "":
			others++
		}
	}
	if exporter < 0 || !strings.Contains(src[lines[exporter].start:lines[exporter].end], OtelPath+"/v1/logs") {
		return src, nil
	}
	cut := func(s string, ln tomlLine) string {
		end := ln.end
		if strings.HasPrefix(s[end:], "\r\n") {
			end += 2
		} else if strings.HasPrefix(s[end:], "\n") {
			end++
		}
		return s[:ln.start] + s[end:]
	}
	out := cut(src, lines[exporter])
	if header >= 0 && others == 0 {
		out = cut(out, lines[header])
	}
	return out, nil
}

// codexOtelInstalled reports whether config.toml's [otel] exporter is ours.
func codexOtelInstalled(src string) bool {
	lines, err := scanTOML(src)
	if err != nil {
		return false
	}
	for _, ln := range lines {
		if ln.table == "otel" && ln.key == "exporter" && strings.Contains(src[ln.start:ln.end], OtelPath+"/v1/logs") {
			return true
		}
	}
	return false
}

// hasWord reports whether a comma-separated list holds w.
func hasWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if strings.TrimSpace(x) == w {
			return true
		}
	}
	return false
}

func addWord(list, w string) string {
	if hasWord(list, w) || strings.TrimSpace(list) == "none" {
		if hasWord(list, w) {
			return list
		}
		return w
	}
	return list + "," + w
}

func removeWord(list, w string) string {
	var keep []string
	for _, x := range strings.Split(list, ",") {
		if x = strings.TrimSpace(x); x != "" && x != w {
			keep = append(keep, x)
		}
	}
	return strings.Join(keep, ",")
}

// newObjectDoc parses settings that must be a JSON object ("" is {}).
func newObjectDoc(src []byte) (*doc, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		src = []byte("{}\n")
	}
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	if d.root.kind != kObject {
		return nil, fmt.Errorf("%w: the settings are not a JSON object", ErrSyntax)
	}
	return d, nil
}

// at is the object at path under the root, made when missing.
func (d *doc) at(path []string) (*node, error) {
	n := d.root
	for i, k := range path {
		c := n.get(k)
		if c == nil {
			if err := d.add(n, k, struct{}{}); err != nil {
				return nil, err
			}
			return d.at(path[:i+1])
		}
		if c.kind != kObject {
			return nil, fmt.Errorf("%w: %q is not an object", ErrSyntax, k)
		}
		n = c
	}
	return n, nil
}

// setString sets the object at path's key to the string v.
func (d *doc) setString(path []string, key, v string) error { return d.setValue(path, key, v) }

// setLiteral sets the object at path's key to the boolean v.
func (d *doc) setLiteral(path []string, key string, v bool) error { return d.setValue(path, key, v) }

func (d *doc) setValue(path []string, key string, v any) error {
	obj, err := d.at(path)
	if err != nil {
		return err
	}
	n := obj.get(key)
	if n == nil {
		return d.add(obj, key, v)
	}
	text := d.render(v, "compact")
	if string(d.src[n.start:n.end]) == text {
		return nil
	}
	return d.splice(n.start, n.end, text)
}

// removeKey removes the object at path's key, if there.
func (d *doc) removeKey(path []string, key string) error {
	n := d.root
	for _, k := range path {
		n = n.get(k)
	}
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return d.remove(n, i)
		}
	}
	return nil
}

// otelPossible refuses --otel for an agent it cannot point, and, before
// anything is written, a Codex config.toml whose [otel] exporter is the
// user's (ErrOtherCollector) or cannot be edited as a line.
func (o Options) otelPossible(install bool) error {
	if !install || !o.Otel {
		return nil
	}
	switch o.Agent {
	case ClaudeCode, Gemini:
		return nil
	case Codex:
		path := filepath.Join(o.codexHome(), "config.toml")
		_, f, err := readSettings(path)
		if err != nil {
			return err
		}
		if _, err := setCodexOtel(string(f.src), o.OtelURL, o.Force); err != nil {
			return otelRefusal(path, err)
		}
		return nil
	case copilotAgent:
		// Copilot CLI reads its exporter only from its environment (user
		// settings hold a headers helper, never an endpoint): there is no
		// file to write, so the user sets it, as this line says.
		return usagef("--otel cannot be written for %s: it reads its OpenTelemetry only from the environment; start it with OTEL_EXPORTER_OTLP_ENDPOINT=%s (in your shell profile to keep it), and its tokens and failed model calls reach the board", o.Agent, strings.TrimRight(o.OtelURL, "/")+OtelPath)
	}
	return usagef("--otel is for %s, %s and %s: %s has no OpenTelemetry notch-web takes", ClaudeCode, Codex, Gemini, o.Agent)
}

// copilotAgent is GitHub Copilot CLI's install name.
const copilotAgent = "copilot"

// otelRefusal is a refused --otel as a FileError whose fix says --force.
func otelRefusal(path string, err error) error {
	fix := "left untouched: fix it (or move it away) and run again"
	if errors.Is(err, ErrOtherCollector) {
		fix = "notch-web will not replace a collector of yours: left untouched (--force replaces it)"
	}
	return &FileError{Path: path, Problem: oneLine(err.Error()), Fix: fix, Err: err}
}

// setOtel is the settings file's --otel edit (Claude Code, Gemini CLI).
func (o Options) setOtel(src []byte) ([]byte, error) {
	switch o.Agent {
	case ClaudeCode:
		return setClaudeOtel(src, o.OtelURL, o.Force)
	case Gemini:
		return setGeminiOtel(src, o.OtelURL, o.Force)
	}
	return src, nil
}

// removeOtel takes notch-web's --otel out of the settings file.
func (o Options) removeOtel(src []byte) ([]byte, error) {
	switch o.Agent {
	case ClaudeCode:
		return removeClaudeOtel(src)
	case Gemini:
		return removeGeminiOtel(src)
	}
	return src, nil
}

// codexOtel sets (or takes out) Codex's [otel] exporter in config.toml.
func (o Options) codexOtel(res *Result, install bool) error {
	if install && !o.Otel {
		return nil
	}
	path := filepath.Join(o.codexHome(), "config.toml")
	ch, err := o.editFile(path, func(src []byte, exists bool) ([]byte, error) {
		if !install {
			out, err := removeCodexOtel(string(src))
			return []byte(out), err
		}
		out, err := setCodexOtel(string(src), o.OtelURL, o.Force)
		return []byte(out), err
	})
	if err != nil {
		if fe := (*FileError)(nil); errors.As(err, &fe) && errors.Is(err, ErrOtherCollector) {
			return otelRefusal(path, fe.Err)
		}
		if !install {
			res.Notes = append(res.Notes, err.Error()+" (its [otel] is left as it is)")
			return nil
		}
		return err
	}
	if ch.Changed {
		res.Changes = append(res.Changes, ch)
	}
	return nil
}

// otelStatus says where a settings file points the agent's OpenTelemetry,
// when it is at notch-web.
func otelStatus(agent, path string) []string {
	var src []byte
	if agent == Codex {
		path = filepath.Join(filepath.Dir(path), "config.toml")
	}
	if _, f, err := readSettings(path); err == nil && f.exists {
		src = f.src
	}
	if len(src) == 0 {
		return nil
	}
	to := ""
	switch agent {
	case Codex:
		if codexOtelInstalled(string(src)) {
			to = "config.toml's [otel] exporter"
		}
	case ClaudeCode, Gemini:
		d, err := newDoc(src)
		if err != nil {
			return nil
		}
		n := d.root.get("env").get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
		if agent == Gemini {
			n = d.root.get("telemetry").get("otlpEndpoint")
		}
		if n != nil && n.kind == kString && ownOtelURL(n.str) {
			to = n.str
		}
	}
	if to == "" {
		return nil
	}
	return []string{"OpenTelemetry → notch-web (" + to + ")"}
}
