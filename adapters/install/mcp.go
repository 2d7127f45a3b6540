package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/notch-web/notch-web/internal/textrule"
)

// hooks install <agent> --mcp also puts notch-web mcp (the board for the
// agents, read-only unless the host runs with --mcp-steer) into the
// agent's own MCP configuration, user-wide, under the name "notch-web";
// uninstall takes it out again. Each agent keeps its MCP servers in its
// own file and shape:
//
//	claude-code  ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json)  mcpServers.notch-web {type: stdio, command, args}
//	codex        ~/.codex/config.toml ($CODEX_HOME)                 [mcp_servers.notch-web] command, args
//	gemini       ~/.gemini/settings.json                            mcpServers.notch-web {command, args}
//	qwen         ~/.qwen/settings.json ($QWEN_HOME)                 mcpServers.notch-web {command, args}
//	copilot      ~/.copilot/mcp-config.json ($COPILOT_HOME)         mcpServers.notch-web {type: local, command, args, tools: ["*"]}
//	opencode     ~/.config/opencode/opencode.json (or .jsonc)       mcp.notch-web {type: local, command: [...], enabled: true}
//
// The same file rules as the hooks (a backup, an atomic write, the mode
// kept, a file that does not parse left alone). A server named notch-web
// that is not notch-web mcp is someone else's: left as it is, and said.

// MCPName is the server's name in every agent's MCP configuration.
const MCPName = "notch-web"

// ErrMCPTaken is an MCP server named notch-web that runs something else.
var ErrMCPTaken = errors.New(`an MCP server named "notch-web" that is not notch-web mcp is already configured`)

// mcpShape is how an agent writes one MCP server.
type mcpShape int

const (
	mcpServers   mcpShape = iota + 1 // mcpServers.NAME {command, args}
	mcpClaude                        // the same with type stdio
	mcpCopilot                       // the same with type local and tools ["*"]
	mcpOpenCode                      // mcp.NAME {type local, command [argv], enabled}
	mcpCodexTOML                     // [mcp_servers.NAME] in config.toml
)

// mcpShapes are the agents notch-web mcp can be installed into.
var mcpShapes = map[string]mcpShape{
	ClaudeCode: mcpClaude, "codex": mcpCodexTOML, "gemini": mcpServers, "qwen": mcpServers,
	"copilot": mcpCopilot, "opencode": mcpOpenCode,
}

// MCPAgents are the agents hooks install --mcp knows, sorted.
func MCPAgents() []string {
	var out []string
	for a := range mcpShapes {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// mcpPath is the agent's user-wide MCP configuration file.
func (o Options) mcpPath() (string, error) {
	if o.Home == "" {
		return "", usagef("no home directory (set HOME)")
	}
	env := func(k, def string) string {
		if d := o.getenv(k); filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(o.Home, def)
	}
	switch o.Agent {
	case ClaudeCode:
		if d := o.getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) {
			return filepath.Join(d, ".claude.json"), nil
		}
		return filepath.Join(o.Home, ".claude.json"), nil
	case "codex":
		return filepath.Join(o.codexHome(), "config.toml"), nil
	case "gemini":
		return filepath.Join(o.Home, ".gemini", "settings.json"), nil
	case "qwen":
		return filepath.Join(env("QWEN_HOME", ".qwen"), "settings.json"), nil
	case "copilot":
		return filepath.Join(env("COPILOT_HOME", ".copilot"), "mcp-config.json"), nil
	case "opencode":
		dir := filepath.Join(o.Home, ".config", "opencode")
		if _, was, err := readSettings(filepath.Join(dir, "opencode.jsonc")); err == nil && was.exists {
			return filepath.Join(dir, "opencode.jsonc"), nil
		}
		return filepath.Join(dir, "opencode.json"), nil
	}
	return "", usagef("--mcp: notch-web mcp is not installed into %s's configuration (it is for %s): add the command notch-web mcp by hand", o.Agent, strings.Join(MCPAgents(), ", "))
}

// mcpArgv is the server's command line: notch-web's executable, "mcp",
// and --url when the host was named.
func (o Options) mcpArgv() []string {
	argv := []string{o.Exe, "mcp"}
	if o.MCPURL != "" {
		argv = append(argv, "--url", o.MCPURL)
	}
	return argv
}

// mcpEntry is the server as the agent's file holds it.
func mcpEntry(shape mcpShape, argv []string) any {
	type entry struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Tools   []string `json:"tools,omitempty"`
	}
	switch shape {
	case mcpClaude:
		return entry{Type: "stdio", Command: argv[0], Args: argv[1:]}
	case mcpCopilot:
		return entry{Type: "local", Command: argv[0], Args: argv[1:], Tools: []string{"*"}}
	case mcpOpenCode:
		return struct {
			Type    string   `json:"type"`
			Command []string `json:"command"`
			Enabled bool     `json:"enabled"`
		}{"local", argv, true}
	}
	return entry{Command: argv[0], Args: argv[1:]}
}

// isOurMCP reports whether argv runs notch-web mcp.
func isOurMCP(argv []string) bool {
	if len(argv) < 2 || argv[1] != "mcp" {
		return false
	}
	base := filepath.Base(strings.ReplaceAll(argv[0], `\`, "/"))
	return base == "notch-web" || base == "notch-web.exe"
}

// mcpArgvOf is the command line a JSON server entry runs (nil when it is
// not one notch-web can read).
func mcpArgvOf(shape mcpShape, n *node) []string {
	if n == nil || n.kind != kObject {
		return nil
	}
	strs := func(a *node) ([]string, bool) {
		if a == nil {
			return nil, true
		}
		if a.kind != kArray {
			return nil, false
		}
		var out []string
		for _, e := range a.elems {
			if e.kind != kString {
				return nil, false
			}
			out = append(out, e.str)
		}
		return out, true
	}
	cmd := n.get("command")
	if shape == mcpOpenCode {
		argv, ok := strs(cmd)
		if !ok {
			return nil
		}
		return argv
	}
	if cmd == nil || cmd.kind != kString {
		return nil
	}
	args, ok := strs(n.get("args"))
	if !ok {
		return nil
	}
	return append([]string{cmd.str}, args...)
}

// setMCP returns src with notch-web's MCP server in it (or src when it is
// there as it would be written).
func setMCP(src []byte, shape mcpShape, argv []string) ([]byte, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		src = []byte("{}\n")
	}
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	if d.root.kind != kObject {
		return nil, fmt.Errorf("%w: the file is not a JSON object", ErrSyntax)
	}
	key := "mcpServers"
	if shape == mcpOpenCode {
		key = "mcp"
	}
	want := mcpEntry(shape, argv)
	servers := d.root.get(key)
	if servers == nil {
		if err := d.add(d.root, key, map[string]any{MCPName: want}); err != nil {
			return nil, err
		}
		return d.src, nil
	}
	if servers.kind != kObject {
		return nil, fmt.Errorf("%w: its %s is not an object", ErrSyntax, key)
	}
	old := servers.get(MCPName)
	if old == nil {
		if err := d.add(servers, MCPName, want); err != nil {
			return nil, err
		}
		return d.src, nil
	}
	if !isOurMCP(mcpArgvOf(shape, old)) {
		return nil, ErrMCPTaken
	}
	if sameJSON(old.value(), want) {
		return src, nil
	}
	if err := d.splice(old.start, old.end, d.render(want, d.indentOf(old.start))); err != nil {
		return nil, err
	}
	return d.src, nil
}

// removeMCP returns src without notch-web's MCP server (src when there is
// none; a server of that name that is someone else's stays).
func removeMCP(src []byte, shape mcpShape) ([]byte, error) {
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	key := "mcpServers"
	if shape == mcpOpenCode {
		key = "mcp"
	}
	servers := d.root.get(key)
	if d.root.kind != kObject || servers == nil || servers.kind != kObject {
		return src, nil
	}
	for i := len(servers.members) - 1; i >= 0; i-- {
		if m := servers.members[i]; m.key == MCPName && isOurMCP(mcpArgvOf(shape, m.val)) {
			if err := d.remove(servers, i); err != nil {
				return nil, err
			}
			return d.src, nil
		}
	}
	return src, nil
}

// mcpStatus says whether notch-web mcp is in the agent's MCP configuration:
// "" when the agent has none notch-web knows.
func (o Options) mcpStatus() string {
	shape, ok := mcpShapes[o.Agent]
	if !ok {
		return ""
	}
	path, err := o.mcpPath()
	if err != nil {
		return ""
	}
	_, was, err := readSettings(path)
	if err != nil || !was.exists {
		return ""
	}
	shown := textrule.Show(path)
	if shape == mcpCodexTOML {
		if argv, ok := readCodexMCP(string(was.src)); ok && isOurMCP(argv) {
			return "notch-web mcp is configured in " + shown
		}
		return ""
	}
	d, err := newDoc(was.src)
	if err != nil || d.root.kind != kObject {
		return ""
	}
	key := "mcpServers"
	if shape == mcpOpenCode {
		key = "mcp"
	}
	if isOurMCP(mcpArgvOf(shape, d.root.get(key).get(MCPName))) {
		return "notch-web mcp is configured in " + shown
	}
	return ""
}

// runMCP installs (or removes) notch-web mcp in the agent's MCP
// configuration, adding its change and notes to res.
func (o Options) runMCP(res *Result, install bool) error {
	shape, ok := mcpShapes[o.Agent]
	if !ok {
		if install {
			_, err := o.mcpPath()
			return err
		}
		return nil
	}
	path, err := o.mcpPath()
	if err != nil {
		return err
	}
	if !install {
		if _, was, err := readSettings(path); err != nil || !was.exists {
			return nil // nothing of ours can be there
		}
	}
	argv := o.mcpArgv()
	// A file made here is the user's alone: ~/.claude.json, which Claude
	// Code then fills with its account, and a server's env may hold a
	// token.
	o.newMode = 0o600
	ch, err := o.editFile(path, func(src []byte, exists bool) ([]byte, error) {
		switch {
		case shape == mcpCodexTOML && install:
			out, err := setCodexMCP(string(src), argv)
			return []byte(out), err
		case shape == mcpCodexTOML:
			out, err := removeCodexMCP(string(src))
			return []byte(out), err
		case install:
			return setMCP(src, shape, argv)
		}
		return removeMCP(src, shape)
	})
	if err != nil {
		return err
	}
	if ch.Changed {
		res.Changes = append(res.Changes, ch)
	}
	if install {
		res.Notes = append(res.Notes, fmt.Sprintf("notch-web mcp is an MCP server of %s (in %s): it reads the board; it sends a message to another session only if the host runs with --mcp-steer", o.Agent, textrule.Show(path)))
	}
	return nil
}

// sameJSON reports whether a value read from a file is v as JSON.
func sameJSON(read, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var norm any
	return json.Unmarshal(b, &norm) == nil && reflect.DeepEqual(read, norm)
}

// Codex's MCP servers are tables of config.toml: [mcp_servers.notch-web]
// with command and args. notch-web edits its own table as lines (the rest
// of the file stays byte for byte), and refuses a file where the server is
// said any other way (a dotted key, an inline table, a sub-table): it then
// hands back the lines to add by hand.

// codexMCPTable is where notch-web's table is in a config.toml.
type codexMCPTable struct {
	lines     []tomlLine
	header    int // the header line's index (-1: none)
	end       int // the index of the first line after the table
	argv      []string
	readable  bool // command and args are one-line strings, and nothing else is there but comments
	elsewhere bool // the server is named some other way
}

var codexMCPNames = []string{"mcp_servers.notch-web", `mcp_servers."notch-web"`, `mcp_servers.'notch-web'`}

func readCodexTable(src string) (codexMCPTable, error) {
	lines, err := scanTOML(src)
	if err != nil {
		return codexMCPTable{}, err
	}
	t := codexMCPTable{lines: lines, header: -1, end: len(lines)}
	for i, ln := range lines {
		if !ln.structural {
			continue
		}
		name := strings.ReplaceAll(ln.header, " ", "")
		switch {
		case ln.header != "" && slices.Contains(codexMCPNames, name):
			if t.header >= 0 {
				t.elsewhere = true // twice
			}
			t.header = i
		case ln.header != "" && t.header >= 0 && t.end == len(lines):
			t.end = i
			for _, n := range codexMCPNames {
				if strings.HasPrefix(name, n+".") {
					t.elsewhere = true // a sub-table of it
				}
			}
		case ln.header != "":
			for _, n := range codexMCPNames {
				if strings.HasPrefix(name, n+".") {
					t.elsewhere = true
				}
			}
		case ln.key != "" && ln.table == "" && strings.HasPrefix(strings.ReplaceAll(ln.key, " ", ""), "mcp_servers"):
			t.elsewhere = true // mcp_servers = {…} or mcp_servers.x.y = …
		case ln.key != "" && strings.ReplaceAll(ln.table, " ", "") == "mcp_servers" && strings.Contains(ln.key, "notch-web"):
			t.elsewhere = true
		}
	}
	if t.header < 0 {
		return t, nil
	}
	t.readable = true
	var cmd string
	var args []string
	for i := t.header + 1; i < t.end; i++ {
		ln := lines[i]
		text := strings.TrimSpace(src[ln.start:ln.end])
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if !ln.structural {
			t.readable = false
			continue
		}
		k, v, _ := strings.Cut(text, "=")
		switch strings.TrimSpace(k) {
		case "command":
			s, ok := parseTOMLStrings("[" + strings.TrimSpace(v) + "]")
			if !ok || len(s) != 1 {
				t.readable = false
			} else {
				cmd = s[0]
			}
		case "args":
			s, ok := parseTOMLStrings(v)
			if !ok {
				t.readable = false
			}
			args = s
		default:
			t.readable = false
		}
	}
	if cmd != "" {
		t.argv = append([]string{cmd}, args...)
	}
	return t, nil
}

// readCodexMCP is the command line of config.toml's notch-web server, when
// it has one notch-web can read.
func readCodexMCP(src string) ([]string, bool) {
	t, err := readCodexTable(src)
	if err != nil || t.header < 0 || !t.readable {
		return nil, false
	}
	return t.argv, true
}

// codexMCPLines is the table notch-web writes.
func codexMCPLines(argv []string, nl string) string {
	return "[mcp_servers.notch-web]" + nl + "command = " + tomlString(argv[0]) + nl + "args = " + tomlArray(argv[1:]) + nl
}

// setCodexMCP returns src with notch-web's table: appended at the end, or
// ours replaced.
func setCodexMCP(src string, argv []string) (string, error) {
	t, err := readCodexTable(src)
	if err != nil {
		return "", err
	}
	nl := "\n"
	if strings.Contains(src, "\r\n") {
		nl = "\r\n"
	}
	byHand := "add by hand: " + strings.ReplaceAll(codexMCPLines(argv, "; "), "; args", " args")
	switch {
	case t.elsewhere:
		return "", fmt.Errorf("%w: it names the notch-web MCP server in a way notch-web does not edit (%s)", ErrTOMLLayout, byHand)
	case t.header >= 0 && !t.readable:
		return "", fmt.Errorf("%w: its [mcp_servers.notch-web] holds more than a one-line command and args (%s)", ErrTOMLLayout, byHand)
	case t.header >= 0 && !isOurMCP(t.argv):
		return "", ErrMCPTaken
	case t.header >= 0 && slices.Equal(t.argv, argv):
		return src, nil
	case t.header >= 0:
		start, end := t.span(src)
		return src[:start] + codexMCPLines(argv, nl) + src[end:], nil
	}
	out := src
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += nl
	}
	if strings.TrimSpace(out) != "" {
		out += nl
	}
	return out + codexMCPLines(argv, nl), nil
}

// removeCodexMCP returns src without notch-web's table (src when it has
// none, or one that is not notch-web mcp).
func removeCodexMCP(src string) (string, error) {
	t, err := readCodexTable(src)
	if err != nil {
		return "", err
	}
	if t.header < 0 || t.elsewhere || !t.readable || !isOurMCP(t.argv) {
		return src, nil
	}
	start, end := t.span(src)
	// The blank line before the table (the one setCodexMCP writes) goes
	// with it.
	if h := t.header; h > 0 && strings.TrimSpace(src[t.lines[h-1].start:t.lines[h-1].end]) == "" {
		start = t.lines[h-1].start
	}
	return src[:start] + src[end:], nil
}

// span is where the table is in src: from its header to the end of its
// last line that is not blank, with that line's break.
func (t codexMCPTable) span(src string) (start, end int) {
	last := t.header
	for i := t.header + 1; i < t.end; i++ {
		if strings.TrimSpace(src[t.lines[i].start:t.lines[i].end]) != "" {
			last = i
		}
	}
	start, end = t.lines[t.header].start, t.lines[last].end
	switch {
	case strings.HasPrefix(src[end:], "\r\n"):
		end += 2
	case strings.HasPrefix(src[end:], "\n"):
		end++
	}
	return start, end
}
