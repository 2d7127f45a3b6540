package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

// Reply and Stop (docs/terminal.md): text typed into a session's tmux
// pane, and the agent's interrupt key. Every command is a fixed argv run
// without a shell: the text goes as one argument after tmux's literal flag
// and "--" (send-keys -l -- TEXT), so no byte of it is read as a key name
// or an option, and a trailing ";" — which tmux reads as its command
// separator — is escaped (literal); the only keys ever named are this
// file's constants. Nothing is typed unless the pane's foreground is the
// agent the row watches (Target, inFront), checked before each send-keys.

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

// literal is text as the argument of send-keys -l that tmux types as text:
// tmux reads an argument that ends in ";" as the end of its command (the
// ";" dropped, "run the tests;" typed as "run the tests", a lone ";" as
// nothing), and one that ends in "\;" as ending in ";". Only the end of
// an argument is read so (tmux 1.8 to 3.5 alike: cmd_parse_from_arguments).
func literal(text string) string {
	if strings.HasSuffix(text, ";") {
		return text[:len(text)-1] + `\;`
	}
	return text
}

// Type types text (checked by CheckReply) into tg's tmux pane as one
// literal send-keys, waits settle, then presses Enter: a TUI that reads a
// burst of input as a paste drops an Enter that comes with it (Gemini
// CLI). A newline in text reaches the agent as a newline typed, which
// Claude Code's input takes as a new line (docs/agents.md). The agent
// must be in the pane's foreground before the text and again before the
// Enter (ErrNotInPane), and its input empty (tg.Empty; ErrDraft).
func (t *Tmux) Type(ctx context.Context, tg Target, text string, settle time.Duration) error {
	text, err := CheckReply(text)
	if err != nil {
		return err
	}
	w := tg.Where
	return t.keysTo(ctx, tg, func(ctx context.Context, front func() error) error {
		if _, err := t.tmux(ctx, w, "send-keys", "-t", w.TmuxPane, "-l", "--", literal(text)); err != nil {
			return err
		}
		select {
		case <-time.After(settle):
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrTmux, ctx.Err())
		}
		if err := front(); err != nil {
			return err // the text sits unsent in what is there now; no Enter runs it
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
// Escape) in tg's pane, presses times (at least once) a moment apart:
// OpenCode's first Esc only arms its interrupt ("esc again"). The agent
// must be in the pane's foreground before each press (ErrNotInPane): a
// Ctrl-C or an Esc is a key to a shell too.
func (t *Tmux) Interrupt(ctx context.Context, tg Target, key string, presses int) error {
	if !StopKeys[key] {
		return fmt.Errorf("%w: %q is not an interrupt key", ErrTmux, key)
	}
	if key == "" {
		key = keyEscape
	}
	w := tg.Where
	tg.Empty = nil // a Stop comes while the agent works: its input is not read
	return t.keysTo(ctx, tg, func(ctx context.Context, front func() error) error {
		for i := range max(presses, 1) {
			if i > 0 {
				select {
				case <-time.After(interruptGap):
				case <-ctx.Done():
					return fmt.Errorf("%w: %v", ErrTmux, ctx.Err())
				}
				if err := front(); err != nil {
					return err
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

// keysTo runs send into tg's pane once the pane is known to be on its
// server and the agent in its foreground: ErrNoTmux for a session not in
// tmux, ErrGone for a pane (or a server) that is gone, ErrNotInPane for a
// pane whose foreground is not the agent, ErrBusy while another Type or
// Interrupt runs. send gets front, the same foreground check, to make
// again before a later key.
func (t *Tmux) keysTo(ctx context.Context, tg Target, send func(ctx context.Context, front func() error) error) error {
	w := tg.Where
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
	// The panes, and the pane's screen when the input is to be read, in
	// one run of tmux: its commands apart (";" alone is tmux's separator
	// here, an argument of the argv, never a reply's), the screen after a
	// line no screen can hold before it (a nonce: list-panes prints only
	// ids and numbers).
	args := []string{"list-panes", "-a", "-F", "#{pane_id} #{pane_pid}"}
	nonce := ""
	if tg.Empty != nil {
		nonce = "notch-web-screen-" + strconv.FormatUint(rand.Uint64(), 36)
		args = append(args, ";", "display-message", "-p", nonce, ";", "capture-pane", "-p", "-e", "-t", w.TmuxPane)
	}
	out, err := t.tmux(ctx, w, args...)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrGone, err)
	}
	var screen []byte
	if nonce != "" {
		var found bool
		out, screen, found = bytes.Cut(out, []byte("\n"+nonce+"\n"))
		if !found {
			return fmt.Errorf("%w: no screen read", ErrTmux)
		}
	}
	panePID := 0
	for _, line := range strings.Split(string(out), "\n") {
		if p, pid, ok := strings.Cut(strings.TrimSpace(line), " "); ok && p == w.TmuxPane {
			panePID, _ = strconv.Atoi(pid)
			break
		}
	}
	if panePID == 0 {
		return fmt.Errorf("%w: no pane %s on its server", ErrGone, w.TmuxPane)
	}
	front := func() error { return t.inFront(panePID, tg) }
	if err := front(); err != nil {
		return err
	}
	if tg.Empty != nil && !tg.Empty(string(screen)) {
		return ErrDraft
	}
	return send(ctx, front)
}
