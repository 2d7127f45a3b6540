package install

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/codex"
	"github.com/notch-web/notch-web/adapters/gemini"
)

// The agents Install knows, by their adapters' names.
const (
	ClaudeCode = claudecode.Agent
	Codex      = codex.Agent
	Gemini     = gemini.Agent
)

// Agents lists them, for help texts and errors.
var Agents = []string{ClaudeCode, Codex, Gemini}

// The scopes a settings file can have.
const (
	ScopeUser    = "user"    // the user's own settings, in the home directory
	ScopeProject = "project" // a project's shared settings (committed)
	ScopeLocal   = "local"   // a project's settings for this machine only (Claude Code)
)

// Timeouts written with our hooks: the host answers at once, and a hook
// must never hold an agent up for long when the host is down.
const (
	ClaudeHTTPTimeout  = 2    // seconds (Claude Code's http hook)
	CodexTimeout       = 5    // seconds (Codex's command hook; notch-web hook gives up after 1)
	GeminiTimeoutMilli = 3000 // milliseconds (Gemini CLI's command hook)
)

// HookPath is the host's endpoint for an agent's hooks.
func HookPath(agent string) string { return "/agents-notch/hooks/" + agent }

// httpHook is a Claude Code http hook, in the documented key order.
type httpHook struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	Timeout int    `json:"timeout"`
}

// commandHook is a command hook as Codex and Claude Code write it.
type commandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// geminiHook is a Gemini CLI command hook; its name is what /hooks enable
// and disable take.
type geminiHook struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// mentionsNotchWeb reports whether a program path is notch-web's.
func mentionsNotchWeb(program string) bool {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(program, `\`, "/")))
	return strings.Contains(base, "notch-web")
}

// follows reports whether a and b follow each other in ss.
func follows(ss []string, a, b string) bool {
	for i := 0; i+1 < len(ss); i++ {
		if ss[i] == a && ss[i+1] == b {
			return true
		}
	}
	return false
}

// ourCommand reports whether a command hook's command runs notch-web's
// hook for agent: "…notch-web… hook <agent> …".
func ourCommand(cmd, agent string) bool {
	fields := shellFields(cmd)
	return len(fields) >= 3 && mentionsNotchWeb(fields[0]) && follows(fields[1:], "hook", agent)
}

// shellFields splits a command line into words as a shell would for the
// simple cases: white space separates, single and double quotes group (a
// backslash escapes the next character outside single quotes).
func shellFields(cmd string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	esc := false
	for _, r := range cmd {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'' && runtime.GOOS != "windows":
			esc, in = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// oursFor is the predicate that tells notch-web's hooks for agent from the
// user's: an http hook to our endpoint (on any host or port, so that a
// changed URL is still ours to replace), or a command hook running
// "notch-web hook <agent>".
func oursFor(agent string) func(*node) bool {
	return func(h *node) bool {
		typ := h.get("type")
		if typ == nil || typ.kind != kString {
			return false
		}
		switch typ.str {
		case "http":
			u := h.get("url")
			return u != nil && u.kind == kString && strings.HasSuffix(strings.TrimRight(u.str, "/"), HookPath(agent))
		case "command":
			c := h.get("command")
			return c != nil && c.kind == kString && ourCommand(c.str, agent)
		}
		return false
	}
}

// shellQuote quotes a program path for the shell an agent runs its command
// hooks with: POSIX single quotes, or double quotes on Windows; a path of
// only safe characters stays as it is.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r) ||
			(runtime.GOOS == "windows" && r == '\\')) {
			safe = false
			break
		}
	}
	switch {
	case safe:
		return s
	case runtime.GOOS == "windows":
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCommand is the command an agent's command hook runs.
func hookCommand(exe, agent, url string) string {
	cmd := shellQuote(exe) + " hook " + agent
	if url != "" {
		cmd += " --url " + shellQuote(url)
	}
	return cmd
}

// claudeFormat is Claude Code's settings: http hooks to the host for every
// hook the adapter maps; Notification only for permission prompts.
func claudeFormat(base string) hooksFormat {
	return hooksFormat{
		events:  claudecode.Events,
		matcher: map[string]string{claudecode.Notification: "permission_prompt"},
		entry:   httpHook{Type: "http", URL: strings.TrimRight(base, "/") + HookPath(ClaudeCode), Timeout: ClaudeHTTPTimeout},
		ours:    oursFor(ClaudeCode),
	}
}

// codexFormat is Codex's hooks.json: command hooks for the hooks every
// Codex with hooks knows.
func codexFormat(cmd string) hooksFormat {
	return hooksFormat{
		events: codex.Events,
		entry:  commandHook{Type: "command", Command: cmd, Timeout: CodexTimeout},
		ours:   oursFor(Codex),
	}
}

// geminiFormat is Gemini CLI's settings: command hooks; Notification only
// for tool permissions.
func geminiFormat(cmd string) hooksFormat {
	return hooksFormat{
		events:  gemini.Events,
		matcher: map[string]string{gemini.Notification: gemini.ToolPermission},
		entry:   geminiHook{Name: "notch-web", Type: "command", Command: cmd, Timeout: GeminiTimeoutMilli},
		ours:    oursFor(Gemini),
	}
}
