package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/notch-web/notch-web/internal/fdlimit"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web"
	"github.com/notch-web/notch-web/web/static"
)

// DefaultAddr is loopback only: notch-web never listens beyond this machine
// unless asked.
const DefaultAddr = "127.0.0.1:7340"

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type config struct {
	addr, dshHome, rowID, statePath, follow, finishedURL, openURL, logLevel, pprof string
	patches, allowHosts, harnessOrigins                                            listFlag
	demo                                                                           bool
	retireAfter                                                                    time.Duration
}

func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("notch-web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", DefaultAddr, "`HOST:PORT` to listen on (port 0 picks a free port)")
	fs.StringVar(&c.dshHome, "dsh-home", "", "the DSH home `DIR` (default $DSH_HOME, else ~/.dsh)")
	fs.Var(&c.patches, "patch", "a patch `FILE` holding the plugin row, repeatable in layer order (default $DSH_HOME/cordis.patch.yml)")
	fs.StringVar(&c.rowID, "row-id", settings.DefaultRowID, "the plugin row's `ID` in the patch files")
	fs.Var(&c.allowHosts, "allow-host", "also accept this Host `NAME` (or NAME:PORT), e.g. a Tailscale name; repeatable")
	fs.Var(&c.harnessOrigins, "harness-origin", "trust this harness page `ORIGIN` (scheme://host:port) for writes and CORS; repeatable")
	fs.StringVar(&c.statePath, "state", "", "where to write state.json (default $DSH_HOME/state/agents-notch/state.json)")
	fs.StringVar(&c.follow, "follow", "", "mirror the state.json another host writes at `PATH` (no events, no writer)")
	fs.StringVar(&c.finishedURL, "finished-url", "", "the harness's close-out `URL` (finishedUrl); without it the ✕ writes manual.json")
	fs.StringVar(&c.openURL, "open-url", "", "the harness's open-session `URL` (openUrl); without it there is no Open")
	fs.BoolVar(&c.demo, "demo", false, "play a built-in scenario through the events path, in a loop")
	fs.DurationVar(&c.retireAfter, "retire-after", state.DefaultRetireAfter, "how long a settled row stays when the row says retire: timer")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warning or error")
	fs.StringVar(&c.pprof, "pprof", "", "serve Go's pprof profiles on this loopback `HOST:PORT` (off by default)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.dshHome == "" {
		c.dshHome = getenv("DSH_HOME")
	}
	if c.dshHome == "" {
		home := getenv("HOME")
		if runtime.GOOS == "windows" && home == "" {
			home = getenv("USERPROFILE")
		}
		if home == "" {
			return nil, errors.New("no DSH home: set DSH_HOME or HOME, or pass --dsh-home")
		}
		c.dshHome = filepath.Join(home, ".dsh")
	}
	if len(c.patches) == 0 {
		c.patches = listFlag{filepath.Join(c.dshHome, "cordis.patch.yml")}
	}
	if c.statePath == "" {
		c.statePath = filepath.Join(c.dshHome, "state", "agents-notch", "state.json")
	}
	for _, u := range []string{c.finishedURL, c.openURL} {
		if u == "" {
			continue
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("%q is not an absolute http(s) URL", u)
		}
	}
	for _, o := range c.harnessOrigins {
		p, err := url.Parse(o)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || (p.Path != "" && p.Path != "/") {
			return nil, fmt.Errorf("--harness-origin %q is not an origin (scheme://host[:port])", o)
		}
	}
	if c.pprof != "" {
		host, _, err := net.SplitHostPort(c.pprof)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--pprof %q: profiles are served on a loopback address only", c.pprof)
		}
	}
	if c.follow != "" && c.demo {
		return nil, errors.New("--follow and --demo do not mix: a follower takes no events")
	}
	return &c, nil
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

// run is the whole program: flags, wiring, serving, and a graceful shutdown
// when ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "hook" || args[0] == "hooks") {
		return runAgentHooks(ctx, args, getenv, os.Stdin, stdout, stderr) // hooks.go
	}
	cfg, err := parseFlags(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	level, err := logLevel(cfg.logLevel)
	if err != nil {
		return err
	}
	log := logx.New(stderr, level)

	paneDir := filepath.Join(cfg.dshHome, "state", "agents-notch")
	svc := settings.NewService(settings.Options{
		PatchPaths: cfg.patches, RowID: cfg.rowID,
		PanePath: filepath.Join(paneDir, "settings.json"), Log: log,
	})
	locks := security.New(security.Config{AllowHosts: cfg.allowHosts, HarnessOrigins: cfg.harnessOrigins, Log: log})

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.addr, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	locks.SetPort(port)

	bcfg := web.BoardConfig{HostPid: os.Getpid(), RetireAfter: cfg.retireAfter, Follow: cfg.follow != ""}
	if cfg.finishedURL != "" {
		bcfg.FinishedURL = &cfg.finishedURL
	}
	if cfg.openURL != "" {
		bcfg.OpenURL = &cfg.openURL
	}
	board := web.NewBoard(bcfg, svc)
	hub := web.NewHub(board, svc, log)
	hub.MaxStreams = fdlimit.Streams()
	manualPath := filepath.Join(cfg.dshHome, "state", "session-finished", "manual.json")
	srv := web.New(web.Deps{
		Settings: svc, Board: board, Hub: hub, Locks: locks, Log: log,
		Static: static.FS, ManualPath: manualPath, OpenDoor: cfg.openURL,
	})
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ConnContext:       web.ConnContext,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpSrv.RegisterOnShutdown(hub.Close)

	host := cfg.addr[:strings.LastIndex(cfg.addr, ":")]
	if host == "" || host == "0.0.0.0" || host == "[::]" {
		host = "127.0.0.1"
	}
	pageURL := fmt.Sprintf("http://%s/agents-notch/", net.JoinHostPort(strings.Trim(host, "[]"), fmt.Sprint(port)))
	fmt.Fprintln(stdout, pageURL)
	log.Info("serving", "log_type", "agents-notch.host.v1", slog.Group("data",
		"url", pageURL, "dshHome", cfg.dshHome, "patches", []string(cfg.patches), "follow", cfg.follow, "demo", cfg.demo))

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := httpSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx, httpSrv)
	})
	if cfg.pprof != "" {
		g.Go(func() error { return servePprof(gctx, cfg.pprof) })
	}
	g.Go(func() error { return svc.Watch(gctx) })
	g.Go(func() error { hub.Run(gctx); return nil })

	if cfg.follow != "" {
		f := &state.Follower{
			Path:       cfg.follow,
			OnDocument: board.SetFollowed,
			OnError: func(err error) {
				log.Warn("followed state.json not read; keeping the last good one", "log_type", "agents-notch.follow.v1", logx.Err("FollowError", err))
			},
		}
		g.Go(func() error { return f.Run(gctx) })
	} else {
		changes, stopC := board.Subscribe()
		setChanges, stopS := svc.Subscribe()
		notify := make(chan struct{}, 1)
		g.Go(func() error {
			defer stopC()
			defer stopS()
			for {
				select {
				case <-gctx.Done():
					return nil
				case <-changes:
				case <-setChanges:
				}
				select {
				case notify <- struct{}{}:
				default:
				}
			}
		})
		w := &state.Writer{
			Path: cfg.statePath, Interval: state.Heartbeat,
			Snapshot: func(now time.Time) state.Document { d, _ := board.Snapshot(now); return d },
			OnError: func(err error) {
				log.Error("state.json not written", "log_type", "agents-notch.state.v1", logx.Err("WriteError", err))
			},
		}
		g.Go(func() error { return w.Run(gctx, notify) })
		g.Go(func() error { return watchMarks(gctx, manualPath, board, log) })
		if cfg.demo {
			g.Go(func() error { return playDemo(gctx, board, log) })
		}
	}
	return g.Wait()
}

// watchMarks retires the rows whose close-out mark appears in manual.json
// (the window writes it too). Only marks new since the last read count, so a
// session that comes back under the same id is not retired again.
func watchMarks(ctx context.Context, path string, b *web.Board, log *slog.Logger) error {
	seen := map[string]int64{}
	read := func() {
		// A partly unreadable file still yields the marks it holds.
		marks, err := state.ReadMarks(path)
		if err != nil {
			log.Warn("manual.json not fully read", "log_type", "agents-notch.state.v1", logx.Err("MarksError", err))
		}
		var ids []string
		for id, m := range marks {
			if m.State == state.MarkFinished && seen[id] != m.At {
				ids = append(ids, id)
			}
			seen[id] = m.At
		}
		if len(ids) > 0 {
			b.Retire(ids...)
		}
	}
	read()
	return fsx.Watch(ctx, []string{path}, read, nil)
}
