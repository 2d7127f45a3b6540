package install

import (
	"runtime"
	"strings"
	"time"

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
	ClaudeTimeout      = 5    // seconds (Claude Code's command hook; notch-web hook gives up after 1)
	CodexTimeout       = 5    // seconds (Codex's command hook; notch-web hook gives up after 1)
	CodexEndTimeout    = 3    // seconds (Codex's SessionEnd and Interrupt hooks: its most)
	GeminiTimeoutMilli = 3000 // milliseconds (Gemini CLI's command hook)
)

// Approvals from the board hold an agent's PermissionRequest hook while the
// board shows its card (the host's --approval-hold): the installed hook's
// timeout is a few seconds above the hold, so the agent never gives up on
// the hook first.
const (
	// DefaultApprovalHold is the host's default hold (host.DefaultApprovalHold).
	DefaultApprovalHold = 25 * time.Second
	// DefaultCodexWait is how long Codex's PermissionRequest hook waits on
	// the board when installed with --approvals: short, because Codex shows
	// its own prompt only after the hook returns.
	DefaultCodexWait = 10 * time.Second
	// holdMargin is how much longer than the hold an agent waits on the hook.
	holdMargin = 5 * time.Second
)

// holdTimeout is a hook's timeout in whole seconds for a hold.
func holdTimeout(hold time.Duration) int {
	return int((hold + holdMargin + time.Second - 1) / time.Second)
}

// withHold gives Claude Code's PermissionRequest http hook a timeout a few
// seconds above the host's hold, so the board can answer it.
func withHold(f hooksFormat, base string, hold time.Duration) hooksFormat {
	entries := map[string]any{claudecode.PermissionRequest: httpHook{
		Type: "http", URL: strings.TrimRight(base, "/") + HookPath(ClaudeCode), Timeout: holdTimeout(hold),
	}}
	for k, v := range f.entries {
		entries[k] = v
	}
	f.entries = entries
	return f
}

// withCodexWait (hooks install codex --approvals) makes Codex's
// PermissionRequest hook wait up to wait on the board's answer ("notch-web
// hook codex --wait"), which delays Codex's own prompt by as much; wait 0
// leaves it observe-only.
func withCodexWait(f hooksFormat, cmd string, wait time.Duration) hooksFormat {
	if wait <= 0 {
		return f
	}
	entries := map[string]any{codex.PermissionRequest: commandHook{
		Type: "command", Command: cmd + " --wait " + wait.String(), Timeout: holdTimeout(wait),
	}}
	for k, v := range f.entries {
		entries[k] = v
	}
	f.entries = entries
	return f
}

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
// hook the adapter maps, but for SessionStart a command hook running cmd,
// because Claude Code skips http hooks for SessionStart ("HTTP hooks are
// not supported for SessionStart"); Notification only for permission
// prompts.
func claudeFormat(base, cmd string) hooksFormat {
	return hooksFormat{
		events:  claudecode.Events,
		matcher: map[string]string{claudecode.Notification: "permission_prompt"},
		entry:   httpHook{Type: "http", URL: strings.TrimRight(base, "/") + HookPath(ClaudeCode), Timeout: ClaudeHTTPTimeout},
		entries: map[string]any{claudecode.SessionStart: commandHook{Type: "command", Command: cmd, Timeout: ClaudeTimeout}},
		ours:    oursFor(ClaudeCode),
	}
}

// codexFormat is Codex's hooks.json: command hooks for the hooks every
// Codex with hooks knows.
func codexFormat(cmd string) hooksFormat {
	// Codex 0.169 clamps SessionEnd's and Interrupt's timeout to 3 s (and
	// says so on every start): written as it will run.
	end := commandHook{Type: "command", Command: cmd, Timeout: CodexEndTimeout}
	return hooksFormat{
		events:  codex.Events,
		entry:   commandHook{Type: "command", Command: cmd, Timeout: CodexTimeout},
		entries: map[string]any{codex.SessionEnd: end, codex.Interrupt: end},
		ours:    oursFor(Codex),
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
