// Package terminal is where a session runs and how to get there: the
// terminal facts "notch-web hook" reads from the agent's environment at a
// hook (Where: the tmux pane and socket, TERM_PROGRAM, WezTerm's pane and
// socket, kitty's window and listen socket, GNU screen's session and
// window, Zellij's session and pane), carried to the host in one request
// header, every value validated on both sides; the door they open (Door:
// the host switches a tmux client to the pane, or the board copies the
// command that gets there); the tmux commands themselves (GoTo, and
// Reply and Stop's Type and Interrupt: a fixed argv, never a shell); and
// Reply and Stop through the remote control of screen, Zellij, kitty and
// WezTerm (Remote).
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
	// WeztermSocket is $WEZTERM_UNIX_SOCKET: the mux server "wezterm
	// cli" talks to (else the newest GUI's of this user).
	WeztermSocket string
	KittyWindow   string // $KITTY_WINDOW_ID: digits
	// KittyListen is $KITTY_LISTEN_ON, "unix:" and a socket's path: set
	// only when kitty listens (listen_on, with allow_remote_control).
	KittyListen   string
	ScreenSession string // $STY: "PID.name"
	ScreenWindow  string // $WINDOW: digits
	ZellijSession string // $ZELLIJ_SESSION_NAME
	ZellijPane    string // $ZELLIJ_PANE_ID: digits (a terminal pane)
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
// window, screen's window, Zellij's pane).
func ValidID(p string) bool { return digits.Span(p, 1, 9) }

// sessionName are the characters of a screen or Zellij session's name
// that are kept (a name with others is dropped: the board copies it into
// a command line).
var sessionName = ascii.NewSet(ascii.Alnum, "._-")

// ValidScreen reports whether p is a screen session as $STY names it:
// its server's PID, ".", and a name of 1 to 64 of sessionName.
func ValidScreen(p string) bool {
	pid, name, ok := strings.Cut(p, ".")
	return ok && digits.Span(pid, 1, 9) && sessionName.Span(name, 1, 64)
}

// ValidZellij reports whether p is a Zellij session's name of 1 to 64 of
// sessionName.
func ValidZellij(p string) bool { return sessionName.Span(p, 1, 64) }

// ValidKittyListen reports whether p is "unix:" and a socket path
// (ValidSocket): the only address of kitty's this host talks to.
func ValidKittyListen(p string) bool {
	path, ok := strings.CutPrefix(p, "unix:")
	return ok && ValidSocket(path)
}

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
	if p := getenv("WEZTERM_UNIX_SOCKET"); w.WeztermPane != "" && ValidSocket(p) {
		w.WeztermSocket = p
	}
	if p := getenv("KITTY_LISTEN_ON"); w.KittyWindow != "" && ValidKittyListen(p) {
		w.KittyListen = p
	}
	if s, n := getenv("STY"), getenv("WINDOW"); ValidScreen(s) && ValidID(n) {
		w.ScreenSession, w.ScreenWindow = s, n
	}
	if s, n := getenv("ZELLIJ_SESSION_NAME"), getenv("ZELLIJ_PANE_ID"); ValidZellij(s) && ValidID(n) {
		w.ZellijSession, w.ZellijPane = s, n
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
	// Since Reply beyond tmux (docs/terminal.md).
	keyWeztermSocket = "wezterm-socket"
	keyKittyListen   = "kitty-listen"
	keyScreen        = "screen-session"
	keyScreenWindow  = "screen-window"
	keyZellij        = "zellij-session"
	keyZellijPane    = "zellij-pane"
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
	set(keyWeztermSocket, w.WeztermSocket)
	set(keyKittyListen, w.KittyListen)
	set(keyScreen, w.ScreenSession)
	set(keyScreenWindow, w.ScreenWindow)
	set(keyZellij, w.ZellijSession)
	set(keyZellijPane, w.ZellijPane)
	return v.Encode()
}

// MaxHeader bounds the header's value: three socket paths at most, each
// escaped.
const MaxHeader = 2048

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
		case keyWeztermSocket:
			w.WeztermSocket, ok = val, ValidSocket(val)
		case keyKittyListen:
			w.KittyListen, ok = val, ValidKittyListen(val)
		case keyScreen:
			w.ScreenSession, ok = val, ValidScreen(val)
		case keyScreenWindow:
			w.ScreenWindow, ok = val, ValidID(val)
		case keyZellij:
			w.ZellijSession, ok = val, ValidZellij(val)
		case keyZellijPane:
			w.ZellijPane, ok = val, ValidID(val)
		}
		if !ok {
			return Where{}
		}
	}
	if (w.TmuxPane == "") != (w.TmuxSocket == "") || (w.ScreenSession == "") != (w.ScreenWindow == "") ||
		(w.ZellijSession == "") != (w.ZellijPane == "") ||
		(w.WeztermSocket != "" && w.WeztermPane == "") || (w.KittyListen != "" && w.KittyWindow == "") {
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
// kitty is reached through tmux), then GNU screen's window and Zellij's
// session (multiplexers too), then WezTerm's pane, then kitty's window.
// TERM_PROGRAM alone opens none.
func (w Where) Door() Door {
	switch {
	case w.TmuxPane != "":
		return Door{Kind: DoorTmux, Command: w.tmuxCommand("switch-client")}
	case w.ScreenSession != "":
		return Door{Kind: DoorCopy, Command: "screen -x " + w.ScreenSession + " -p " + w.ScreenWindow}
	case w.ZellijSession != "":
		return Door{Kind: DoorCopy, Command: "zellij attach " + w.ZellijSession}
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
