package install

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// What notch-web wrote, and nothing else, is notch-web's: Install replaces
// it and Uninstall removes it, so a user's own hook that merely looks like
// ours (a wrapper whose name contains "notch-web", "hook codex" somewhere
// among its words, our endpoint in a query string) must never be taken for
// one.

// isNotchWeb reports whether a program path names notch-web itself: its
// base name is exactly "notch-web" ("notch-web.exe" on Windows, where names
// are case-insensitive).
func isNotchWeb(program string) bool {
	base := filepath.Base(strings.ReplaceAll(program, `\`, "/"))
	if runtime.GOOS == "windows" || strings.HasSuffix(strings.ToLower(base), ".exe") {
		base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	}
	return base == "notch-web"
}

// ourArgv reports whether argv is what notch-web writes to run its hook
// for agent: notch-web, "hook", the agent, then at most the flags
// hookCommand and the hook command itself take (--url URL, --wait D,
// --verbose).
func ourArgv(argv []string, agent string) bool {
	if len(argv) < 3 || !isNotchWeb(argv[0]) || argv[1] != "hook" || argv[2] != agent {
		return false
	}
	for rest := argv[3:]; len(rest) > 0; {
		switch {
		case (rest[0] == "--url" || rest[0] == "--wait") && len(rest) >= 2:
			rest = rest[2:]
		case strings.HasPrefix(rest[0], "--url="), strings.HasPrefix(rest[0], "--wait="), rest[0] == "--verbose":
			rest = rest[1:]
		default:
			return false
		}
	}
	return true
}

// ourCommand reports whether a command hook's command runs notch-web's
// hook for agent and nothing else: ourArgv of its words, none of which is
// a shell operator that would run something besides.
func ourCommand(cmd, agent string) bool {
	words, plain := shellWords(cmd)
	return plain && ourArgv(words, agent)
}

// shellWords splits a command line into words as a shell would for the
// simple cases: white space separates, single and double quotes group (a
// backslash escapes the next character outside single quotes). plain is
// false when the line holds, outside quotes, anything that would make a
// shell do more than run one program with these words (; & | < > ( ) `
// $ * ? [ ~ #, a line break).
func shellWords(cmd string) (words []string, plain bool) {
	var cur strings.Builder
	in, quote := false, byte(0)
	esc := false
	plain = true
	// Byte by byte: every character that matters is ASCII, and the bytes
	// of a path that is not UTF-8 stay as they are.
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case esc:
			cur.WriteByte(c)
			esc = false
		case c == '\\' && quote != '\'' && runtime.GOOS != "windows":
			esc, in = true, true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
			if quote == '"' && (c == '$' || c == '`') {
				plain = false
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			if strings.IndexByte(";&|<>()`$*?[~#\n\r", c) >= 0 {
				plain = false
			}
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	if quote != 0 || esc {
		plain = false
	}
	return words, plain
}

// shellFields is shellWords' words.
func shellFields(cmd string) []string {
	w, _ := shellWords(cmd)
	return w
}

// ourURL reports whether an http hook's URL is the host's endpoint for
// agent: http or https, any host and port, the path exactly HookPath (a
// trailing slash allowed), no query, no fragment.
func ourURL(raw, agent string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return false
	}
	return strings.TrimSuffix(u.Path, "/") == HookPath(agent)
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
			return u != nil && u.kind == kString && ourURL(u.str, agent)
		case "command":
			c := h.get("command")
			return c != nil && c.kind == kString && ourCommand(c.str, agent)
		}
		return false
	}
}

// isOurNotify reports whether argv, Codex's notify, runs notch-web's codex
// hook.
func isOurNotify(argv []string) bool { return ourArgv(argv, Codex) }
