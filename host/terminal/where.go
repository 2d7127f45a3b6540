// Package terminal is where a session runs and how to get there: the
// terminal facts "notch-web hook" reads from the agent's environment at a
// hook (Where: the tmux pane and socket, TERM_PROGRAM, WezTerm's pane,
// kitty's window), carried to the host in one request header, every value
// validated on both sides; the door they open (Door: the host switches a
// tmux client to the pane, or the board copies the command that gets
// there); and the tmux commands themselves (GoTo: a fixed argv, never a
// shell).
//
// The facts are the host's, in memory, per live session: state.json
// (schema 4, frozen) carries none of them.
package terminal

import (
	"net/url"
	"path"
	"strings"

	"github.com/notch-web/notch-web/internal/ascii"
)

// Header carries a hook's Where from "notch-web hook" to the host, as a
// URL query (Encode); absent, the hook says nothing of its terminal.
const Header = "Notch-Where"

// Where is what a hook's environment says of the terminal the agent runs
// in. Every field is validated (Valid…); "" is unknown.
type Where struct {
	TmuxPane    string // $TMUX_PANE: "%3"
	TmuxSocket  string // the socket path, $TMUX's first part
	Program     string // $TERM_PROGRAM: "WezTerm", "iTerm.app", "vscode"
	WeztermPane string // $WEZTERM_PANE: digits
	KittyWindow string // $KITTY_WINDOW_ID: digits
}

// IsZero reports whether w says nothing.
func (w Where) IsZero() bool { return w == Where{} }

var (
	digits  = ascii.NewSet(ascii.Digits)
	program = ascii.NewSet(ascii.Alnum, "._+-")
	// A socket path's characters are those that need no quoting in a
	// shell, so the command the board copies is safe to paste as it is.
	socket = ascii.NewSet(ascii.Alnum, "._/@+=:-")
)

// MaxSocket bounds a tmux socket's path (a Unix socket's path is at most
// 108 bytes on Linux, 104 on macOS; a little room beyond).
const MaxSocket = 200

// ValidPane reports whether p is a tmux pane id: "%" and 1 to 9 digits.
func ValidPane(p string) bool { return prefixed(p, '%', digits, 9) }

// prefixed reports whether p is the byte first and then 1 to max bytes of
// set.
func prefixed(p string, first byte, set *ascii.Set, max int) bool {
	return len(p) > 1 && p[0] == first && set.Span(p[1:], 1, max)
}

// ValidSocket reports whether p is a clean absolute path of at most
// MaxSocket bytes made only of characters a shell takes as they are.
func ValidSocket(p string) bool {
	return len(p) <= MaxSocket && prefixed(p, '/', socket, MaxSocket-1) && path.Clean(p) == p
}

// ValidProgram reports whether p is a short token, as TERM_PROGRAM is.
func ValidProgram(p string) bool { return program.Span(p, 1, 32) }

// ValidID reports whether p is 1 to 9 digits (WezTerm's pane, kitty's
// window).
func ValidID(p string) bool { return digits.Span(p, 1, 9) }

// FromEnv reads the facts from an environment, keeping only the valid
// ones. A tmux pane counts only with its socket: the pane id alone does not
// say which tmux server holds it.
func FromEnv(getenv func(string) string) Where {
	var w Where
	if sock, _, _ := strings.Cut(getenv("TMUX"), ","); ValidSocket(sock) && ValidPane(getenv("TMUX_PANE")) {
		w.TmuxPane, w.TmuxSocket = getenv("TMUX_PANE"), sock
	}
	if p := getenv("TERM_PROGRAM"); ValidProgram(p) {
		w.Program = p
	}
	if p := getenv("WEZTERM_PANE"); ValidID(p) {
		w.WeztermPane = p
	}
	if p := getenv("KITTY_WINDOW_ID"); ValidID(p) {
		w.KittyWindow = p
	}
	return w
}

// The keys of the header's query.
const (
	keyPane    = "tmux-pane"
	keySocket  = "tmux-socket"
	keyProgram = "term"
	keyWezterm = "wezterm-pane"
	keyKitty   = "kitty-window"
)

// Encode is w as the header's value ("" for a zero Where).
func (w Where) Encode() string {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set(keyPane, w.TmuxPane)
	set(keySocket, w.TmuxSocket)
	set(keyProgram, w.Program)
	set(keyWezterm, w.WeztermPane)
	set(keyKitty, w.KittyWindow)
	return v.Encode()
}

// MaxHeader bounds the header's value.
const MaxHeader = 512

// Parse reads the header's value. It is strict: a value too long, a key
// given twice, an unknown key or any value that is not valid yields the
// zero Where (the hook itself is applied all the same), as does a tmux
// pane without its socket or a socket without its pane.
func Parse(s string) Where {
	if s == "" || len(s) > MaxHeader {
		return Where{}
	}
	v, err := url.ParseQuery(s)
	if err != nil {
		return Where{}
	}
	var w Where
	for k, vs := range v {
		if len(vs) != 1 {
			return Where{}
		}
		val := vs[0]
		var ok bool
		switch k {
		case keyPane:
			w.TmuxPane, ok = val, ValidPane(val)
		case keySocket:
			w.TmuxSocket, ok = val, ValidSocket(val)
		case keyProgram:
			w.Program, ok = val, ValidProgram(val)
		case keyWezterm:
			w.WeztermPane, ok = val, ValidID(val)
		case keyKitty:
			w.KittyWindow, ok = val, ValidID(val)
		}
		if !ok {
			return Where{}
		}
	}
	if (w.TmuxPane == "") != (w.TmuxSocket == "") {
		return Where{}
	}
	return w
}

// Door kinds.
const (
	// DoorTmux: the host switches a tmux client to the pane (GoTo).
	DoorTmux = "tmux"
	// DoorCopy: the board copies a command that gets there, to run by
	// hand (WezTerm, kitty).
	DoorCopy = "copy"
)

// Door is the way from the board to a session's terminal.
type Door struct {
	Kind string // DoorTmux, DoorCopy, or "" (no way known)
	// Command is what gets there, as typed in a shell on the session's
	// machine: what DoorCopy copies, and what DoorTmux's action offers
	// when no tmux client is attached.
	Command string
}

// Door is the way to w's terminal: tmux first (a pane inside WezTerm or
// kitty is reached through tmux), then WezTerm's pane, then kitty's
// window. TERM_PROGRAM alone opens none.
func (w Where) Door() Door {
	switch {
	case w.TmuxPane != "":
		return Door{Kind: DoorTmux, Command: w.tmuxCommand("switch-client")}
	case w.WeztermPane != "":
		return Door{Kind: DoorCopy, Command: "wezterm cli activate-pane --pane-id " + w.WeztermPane}
	case w.KittyWindow != "":
		return Door{Kind: DoorCopy, Command: "kitten @ focus-window --match id:" + w.KittyWindow}
	}
	return Door{}
}

// AttachCommand is the command that attaches a new tmux client at w's
// pane, for when none is attached.
func (w Where) AttachCommand() string { return w.tmuxCommand("attach-session") }

// tmuxCommand is "tmux [-S socket] <verb> -t <pane>": the socket is named
// unless it is tmux's default one.
func (w Where) tmuxCommand(verb string) string {
	cmd := "tmux "
	if path.Base(w.TmuxSocket) != "default" {
		cmd += "-S " + w.TmuxSocket + " "
	}
	return cmd + verb + " -t " + w.TmuxPane
}
