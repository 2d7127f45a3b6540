package install

import (
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Claude Code runs one statusLine command per user. "hooks install
// claude-code --statusline" makes it notch-web's ("notch-web statusline"),
// which chains the command that was there — kept, base64, in its --chain
// argument, so nothing else needs to remember it — and "hooks uninstall"
// puts that command back (or takes statusLine out when there was none).

// ErrStatusLine is a statusLine notch-web will not replace: not a command.
var ErrStatusLine = errors.New("statusLine is not a command")

// statuslineCmd is notch-web's statusLine command line: the executable
// (quoted for the shell Claude Code runs it with), "statusline", the host's
// URL when one was given, and the chained command.
func statuslineCmd(exe, url, prev string) string {
	parts := []string{shellQuote(exe), "statusline"}
	if url != "" {
		parts = append(parts, "--url", shellQuote(url))
	}
	if prev != "" {
		parts = append(parts, "--chain", base64.RawURLEncoding.EncodeToString([]byte(prev)))
	}
	return strings.Join(parts, " ")
}

// ownStatusline reports whether command is notch-web's statusline, and the
// command it chains ("" for none).
func ownStatusline(command string) (prev string, ok bool) {
	w, plain := shellWords(command)
	if !plain || len(w) < 2 || w[1] != "statusline" {
		return "", false
	}
	base := filepath.Base(strings.ReplaceAll(w[0], `\`, "/"))
	if base != "notch-web" && base != "notch-web.exe" {
		return "", false
	}
	for i := 2; i+1 < len(w); i++ {
		if w[i] == "--chain" {
			b, err := base64.RawURLEncoding.DecodeString(w[i+1])
			if err != nil {
				return "", false
			}
			return string(b), true
		}
	}
	return "", true
}

// setStatusLine makes the settings' statusLine notch-web's, chaining the
// command that was there.
func setStatusLine(src []byte, exe, url string) ([]byte, error) {
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
	sl := d.root.get("statusLine")
	if sl == nil {
		v := struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		}{"command", statuslineCmd(exe, url, "")}
		if err := d.add(d.root, "statusLine", v); err != nil {
			return nil, err
		}
		return d.src, nil
	}
	cmd := sl.get("command")
	if sl.kind != kObject || cmd == nil || cmd.kind != kString {
		return nil, ErrStatusLine
	}
	if t := sl.get("type"); t != nil && (t.kind != kString || t.str != "command") {
		return nil, ErrStatusLine
	}
	prev, ours := ownStatusline(cmd.str)
	if !ours {
		prev = cmd.str
	}
	want := statuslineCmd(exe, url, prev)
	if cmd.str == want {
		return src, nil
	}
	if err := d.splice(cmd.start, cmd.end, d.render(want, "compact")); err != nil {
		return nil, err
	}
	return d.src, nil
}

// removeStatusLine puts back the command notch-web's statusline chains, or
// takes statusLine out when it chains none. A statusLine that is not
// notch-web's is left alone.
func removeStatusLine(src []byte) ([]byte, error) {
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	if d.root.kind != kObject {
		return src, nil
	}
	sl := d.root.get("statusLine")
	if sl == nil || sl.kind != kObject {
		return src, nil
	}
	cmd := sl.get("command")
	if cmd == nil || cmd.kind != kString {
		return src, nil
	}
	prev, ours := ownStatusline(cmd.str)
	if !ours {
		return src, nil
	}
	if prev != "" {
		if err := d.splice(cmd.start, cmd.end, d.render(prev, "compact")); err != nil {
			return nil, err
		}
		return d.src, nil
	}
	for i := len(d.root.members) - 1; i >= 0; i-- {
		if d.root.members[i].key == "statusLine" {
			if err := d.remove(d.root, i); err != nil {
				return nil, err
			}
			break
		}
	}
	return d.src, nil
}
