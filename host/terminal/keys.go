package terminal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

// Reply and Stop (docs/terminal.md): text typed into a session's tmux
// pane, and the agent's interrupt key. Every command is a fixed argv run
// without a shell: the text goes as one argument after tmux's literal flag
// and "--" (send-keys -l -- TEXT), so no byte of it is read as a key name,
// an option or a tmux command; the only keys ever named are this file's
// constants.

// MaxReply bounds a reply, in bytes of UTF-8.
const MaxReply = 8 << 10

// ErrReplyText: a reply that is empty, too long, not UTF-8, or holds a
// control character (anything but a newline: an ESC, a tab, a C1 control,
// DEL). A character the board hides when it shows text (a bidi mark, a
// zero-width space) is refused too: the human cannot see what it does.
var ErrReplyText = errors.New("a reply is 1 to 8192 bytes of text; a newline is the only control character it may hold")

// CheckReply returns a reply as it is typed: CRLF and CR made LF, trailing
// white space dropped; or ErrReplyText.
func CheckReply(s string) (string, error) {
	if len(s) > 2*MaxReply || !utf8.ValidString(s) {
		return "", ErrReplyText
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimRight(s, " \n")
	if s == "" || len(s) > MaxReply {
		return "", ErrReplyText
	}
	for _, line := range strings.Split(s, "\n") {
		if textrule.Has(line) {
			return "", ErrReplyText
		}
	}
	return s, nil
}

// The keys Type and Interrupt name: fixed, never from the text.
const (
	keyEnter  = "Enter"
	keyEscape = "Escape"
)

// Type types text (checked by CheckReply) into w's tmux pane as one
// literal send-keys, waits settle, then presses Enter: a TUI that reads a
// burst of input as a paste drops an Enter that comes with it (Gemini
// CLI). A newline in text reaches the agent as a newline typed, which
// Claude Code's input takes as a new line (docs/agents.md).
func (t *Tmux) Type(ctx context.Context, w Where, text string, settle time.Duration) error {
	text, err := CheckReply(text)
	if err != nil {
		return err
	}
	return t.keysTo(ctx, w, func(ctx context.Context) error {
		if _, err := t.tmux(ctx, w, "send-keys", "-t", w.TmuxPane, "-l", "--", text); err != nil {
			return err
		}
		select {
		case <-time.After(settle):
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrTmux, ctx.Err())
		}
		_, err := t.tmux(ctx, w, "send-keys", "-t", w.TmuxPane, keyEnter)
		return err
	})
}

// StopKeys are the interrupt keys Interrupt presses: Escape (Claude Code,
// Codex, Gemini CLI, OpenCode, and "") and Ctrl-C (GitHub Copilot CLI); no
// other.
var StopKeys = map[string]bool{"": true, keyEscape: true, "C-c": true}

// Interrupt presses the agent's interrupt key (one of StopKeys; "" is
// Escape) in w's pane, presses times (at least once) a moment apart:
// OpenCode's first Esc only arms its interrupt ("esc again").
func (t *Tmux) Interrupt(ctx context.Context, w Where, key string, presses int) error {
	if !StopKeys[key] {
		return fmt.Errorf("%w: %q is not an interrupt key", ErrTmux, key)
	}
	if key == "" {
		key = keyEscape
	}
	return t.keysTo(ctx, w, func(ctx context.Context) error {
		for i := range max(presses, 1) {
			if i > 0 {
				select {
				case <-time.After(interruptGap):
				case <-ctx.Done():
					return fmt.Errorf("%w: %v", ErrTmux, ctx.Err())
				}
			}
			if _, err := t.tmux(ctx, w, "send-keys", "-t", w.TmuxPane, key); err != nil {
				return err
			}
		}
		return nil
	})
}

// interruptGap is the pause between two presses of the interrupt key: a
// TUI takes two at once as one.
const interruptGap = 300 * time.Millisecond

// keysTo runs send into w's pane once the pane is known to be on its
// server: ErrNoTmux for a session not in tmux, ErrGone for a pane (or a
// server) that is gone, ErrBusy while another Type or Interrupt runs.
func (t *Tmux) keysTo(ctx context.Context, w Where, send func(context.Context) error) error {
	if w.TmuxPane == "" {
		return ErrNoTmux
	}
	if !ValidPane(w.TmuxPane) || !ValidSocket(w.TmuxSocket) {
		return fmt.Errorf("%w: not a pane id and socket", ErrTmux)
	}
	if fi, err := os.Stat(w.TmuxSocket); err != nil || fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%w: no tmux server at its socket", ErrGone)
	}
	if !t.keys.TryLock() {
		return ErrBusy
	}
	defer t.keys.Unlock()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	out, err := t.tmux(ctx, w, "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrGone, err)
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == w.TmuxPane {
			found = true
			break
		}
	}
	if !found {
		return fmt.Errorf("%w: no pane %s on its server", ErrGone, w.TmuxPane)
	}
	return send(ctx)
}
