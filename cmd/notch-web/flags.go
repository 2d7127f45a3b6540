package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// DefaultAddr is loopback only: notch-web never listens beyond this machine
// unless asked.
const DefaultAddr = "127.0.0.1:7340"

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// config is the command line, checked and with its defaults filled in.
type config struct {
	addr, dshHome, rowID, statePath, follow, finishedURL, openURL, pprof, window string
	// homePatch is $DSH_HOME/cordis.patch.yml, the layer beneath patches
	// (the --patch files), as the harness layers them.
	homePatch                           string
	patches, allowHosts, harnessOrigins listFlag
	// explicitPatches is set when --patch was given: a missing file is then
	// worth a warning (the default one may well not exist).
	explicitPatches bool
	demo            bool
	retireAfter     time.Duration
	level           slog.Level
	mesh            meshFlags // many machines (mesh.go)
	// approvals is "on" or "off": whether the board answers agents'
	// permission requests; approvalHold bounds how long a hook is held.
	approvals string
	// steer is "on" or "off": whether the board types Reply and Stop into
	// sessions' tmux panes.
	steer string
	// mcpSteer lets agents message other sessions through notch-web mcp
	// (send_message): off unless given.
	mcpSteer     bool
	approvalHold time.Duration
	// publicURL is the board's address as a phone reaches it: where a
	// push's click and buttons go (push.go).
	publicURL string
	// history is "on" or "off": the lasting history (history.go), kept
	// historyDays days and within historyMaxMB.
	history      string
	historyDays  int
	historyMaxMB int
}

const usageHead = `notch-web: the agents notch's web face — its settings, the live board, state.json.

Usage:
`

// flagSet declares the flags into c.
func flagSet(c *config, logLevel *string) *flag.FlagSet {
	fs := flag.NewFlagSet("notch-web", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	fs.StringVar(&c.addr, "addr", DefaultAddr, "`HOST:PORT` to listen on (port 0 picks a free port)")
	fs.StringVar(&c.dshHome, "dsh-home", "", "the DSH home `DIR` (default $DSH_HOME, else ~/.dsh)")
	fs.Var(&c.patches, "patch", "a patch `FILE` layered on $DSH_HOME/cordis.patch.yml, as the harness's --patch is; repeatable, in layer order")
	fs.StringVar(&c.rowID, "row-id", settings.DefaultRowID, "the plugin row's `ID` in the patch files")
	fs.Var(&c.allowHosts, "allow-host", "also accept this Host `NAME` (or NAME:PORT), e.g. a Tailscale name; repeatable")
	fs.Var(&c.harnessOrigins, "harness-origin", "trust this harness page `ORIGIN` (scheme://host:port) for writes, CORS and framing; repeatable")
	fs.StringVar(&c.statePath, "state", "", "where to write state.json (default $DSH_HOME/state/agents-notch/state.json)")
	fs.StringVar(&c.follow, "follow", "", "mirror the state.json another host writes at `PATH` (no events, no writer)")
	fs.StringVar(&c.finishedURL, "finished-url", "", "the harness's close-out `URL` (finishedUrl); without it the ✕ writes manual.json")
	fs.StringVar(&c.openURL, "open-url", "", "the harness's open-session `URL` (openUrl); without it there is no Open")
	fs.StringVar(&c.window, "window", "", "the desktop window `PROGRAM`: spawned with --state and --parent-pid, supervised, respawned")
	fs.BoolVar(&c.demo, "demo", false, "play a built-in scenario through the events path, in a loop")
	fs.DurationVar(&c.retireAfter, "retire-after", state.DefaultRetireAfter, "how long a settled row stays when the row says retire: timer")
	fs.StringVar(&c.approvals, "approvals", "on", "on: the board answers agents' permission requests (Allow / Deny); off: its cards are read-only")
	fs.StringVar(&c.steer, "steer", "on", "on: the board's Reply and Stop type into sessions' tmux panes; off: the rows offer neither")
	fs.BoolVar(&c.mcpSteer, "mcp-steer", false, "let agents send this machine's other sessions a message through notch-web mcp (send_message), with every check of the board's Reply; each use is logged")
	fs.DurationVar(&c.approvalHold, "approval-hold", host.DefaultApprovalHold, "how long an agent's permission request waits on the board before its own prompt decides alone")
	fs.StringVar(&c.publicURL, "public-url", "", "the board's address as your phone reaches it (`URL`, e.g. https://laptop.tailnet.ts.net): pushes link there (default: this machine's own address)")
	fs.StringVar(&c.history, "history", "on", "on: keep every session, turn and answer in $DSH_HOME/state/agents-notch/history.db (the History page); off: keep none")
	fs.IntVar(&c.historyDays, "history-days", store.DefaultDays, "keep the history of sessions that ended within this many `DAYS`")
	fs.IntVar(&c.historyMaxMB, "history-max-mb", store.DefaultMaxBytes>>20, "and keep the history file within this many `MB` (the oldest sessions go first)")
	fs.StringVar(logLevel, "log-level", "info", "debug, info, warning or error")
	fs.StringVar(&c.pprof, "pprof", "", "serve Go's pprof profiles on this loopback `HOST:PORT` (off by default)")
	c.mesh.declare(fs)
	return fs
}

// printUsage writes -h's answer.
func printUsage(w io.Writer) {
	var c config
	var lv string
	fs := flagSet(&c, &lv)
	var b strings.Builder
	fmt.Fprint(&b, usageHead, commandList(), globalsHelp, "\nFlags (notch-web [run] [flags]):\n")
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fmt.Fprint(w, fit(b.String())) // help.go: 80 columns
}

// parseFlags reads the command line. Its errors say what was wrong and what
// would be right, in one line.
func parseFlags(args []string, getenv func(string) string) (*config, error) {
	var c config
	var lv string
	fs := flagSet(&c, &lv)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%v (notch-web -h lists the flags)", err)
	}
	if err := c.mesh.takeJoinCode(fs); err != nil {
		return nil, fmt.Errorf("%v (notch-web -h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (notch-web -h lists the flags)", fs.Arg(0))
	}
	var err error
	if c.level, err = logLevel(lv); err != nil {
		return nil, err
	}
	if err := checkAddr("--addr", c.addr); err != nil {
		return nil, err
	}
	if c.dshHome == "" {
		c.dshHome = getenv("DSH_HOME")
	}
	if c.dshHome == "" {
		home := homeDir(getenv, runtime.GOOS)
		if home == "" {
			return nil, errors.New("no DSH home: set DSH_HOME or HOME, or pass --dsh-home DIR")
		}
		c.dshHome = filepath.Join(home, ".dsh")
	}
	// Only --patch fills patches: any there were named by the user. They
	// layer on the home's file, never replace it.
	c.explicitPatches = len(c.patches) > 0
	c.homePatch = filepath.Join(c.dshHome, "cordis.patch.yml")
	if c.statePath == "" {
		c.statePath = filepath.Join(c.dshHome, "state", "agents-notch", "state.json")
	}
	if c.history != "on" && c.history != "off" {
		return nil, fmt.Errorf("--history %q: want on or off", c.history)
	}
	if c.historyDays < 1 || c.historyDays > 36500 {
		return nil, fmt.Errorf("--history-days %d: want 1 to 36500", c.historyDays)
	}
	if c.historyMaxMB < 1 || c.historyMaxMB > 1<<20 {
		return nil, fmt.Errorf("--history-max-mb %d: want 1 to 1048576", c.historyMaxMB)
	}
	if c.publicURL != "" {
		if err := checkPublicURL(c.publicURL); err != nil {
			return nil, err
		}
	}
	for _, u := range []struct{ flag, value string }{{"--finished-url", c.finishedURL}, {"--open-url", c.openURL}} {
		if u.value == "" {
			continue
		}
		p, err := url.Parse(u.value)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("%s %q: want an absolute http(s) URL, e.g. http://127.0.0.1:51234/agents-notch/open", u.flag, u.value)
		}
	}
	for _, o := range c.harnessOrigins {
		p, err := url.Parse(o)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || (p.Path != "" && p.Path != "/") {
			return nil, fmt.Errorf("--harness-origin %q: want an origin, scheme://host[:port], e.g. http://127.0.0.1:5173", o)
		}
	}
	if c.pprof != "" {
		if err := checkAddr("--pprof", c.pprof); err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(c.pprof)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--pprof %q: profiles are served on a loopback address only, e.g. 127.0.0.1:6060", c.pprof)
		}
	}
	if c.retireAfter <= 0 {
		return nil, fmt.Errorf("--retire-after %v: want a positive duration, e.g. 15m", c.retireAfter)
	}
	if c.steer != "on" && c.steer != "off" {
		return nil, fmt.Errorf("--steer %q: want on or off", c.steer)
	}
	if c.approvals != "on" && c.approvals != "off" {
		return nil, fmt.Errorf("--approvals %q: want on or off", c.approvals)
	}
	if c.approvalHold <= 0 || c.approvalHold > host.MaxApprovalHold {
		return nil, fmt.Errorf("--approval-hold %v: want a duration above 0 and at most %v, e.g. 25s", c.approvalHold, host.MaxApprovalHold)
	}
	if c.follow != "" && c.demo {
		return nil, errors.New("--follow and --demo do not mix: a follower takes no events")
	}
	if c.follow != "" && c.window != "" {
		return nil, errors.New("--follow and --window do not mix: the window reads the state.json its own host writes")
	}
	if err := c.mesh.check(c.follow); err != nil {
		return nil, err
	}
	return &c, nil
}

// homeDir is ~ as the harness, the window and Go's os.UserHomeDir find it:
// USERPROFILE on Windows (HOME when it is unset: a shell that sets only
// HOME), HOME elsewhere; "" when there is none.
func homeDir(getenv func(string) string, goos string) string {
	if goos == "windows" {
		if h := getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	return getenv("HOME")
}

// checkAddr wants HOST:PORT, and says so with an example built from what
// was given.
func checkAddr(name, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		if n, perr := strconv.Atoi(port); perr == nil && n >= 0 && n <= 65535 {
			return nil
		}
		return fmt.Errorf("%s %q: the port must be a number from 0 to 65535", name, addr)
	}
	if n, perr := strconv.Atoi(addr); perr == nil && n >= 0 && n <= 65535 {
		return fmt.Errorf("%s %q: want HOST:PORT, e.g. 127.0.0.1:%d", name, addr, n)
	}
	return fmt.Errorf("%s %q: want HOST:PORT, e.g. 127.0.0.1:7340", name, addr)
}

func logLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warning", "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level %q: want debug, info, warning or error", s)
}
