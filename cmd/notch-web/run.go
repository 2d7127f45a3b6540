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
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/host/window"
	"github.com/notch-web/notch-web/internal/fdlimit"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/tlsmux"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web"
	"github.com/notch-web/notch-web/web/static"
)

// shutdownGrace is how long requests in flight have to finish on SIGTERM.
const shutdownGrace = 1500 * time.Millisecond

// run is the whole program: flags, construction, serving, and a graceful
// shutdown when ctx ends. An error that stops the host is reported by run
// itself, once (reportFatal): one plain line ("notch-web: …") when stderr is
// a terminal, else the standard fatal ERROR record on the log stream, after
// the "stopped" record of a served run. A command's error (hooks, pair, …)
// is always its one plain line: a person ran it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	args = hoistGlobals(args) // notch-web --dsh-home D devices list
	if len(args) > 0 {
		switch args[0] {
		case "hook", "hooks":
			return runAgentHooks(ctx, args, getenv, os.Stdin, stdout, stderr) // hooks.go
		case "help", "version":
			var err error
			if args[0] == "help" {
				err = runHelp(args[1:], getenv, stdout) // help.go
			} else {
				err = runVersion(args[1:], stdout)
			}
			if err != nil {
				fmt.Fprintln(stderr, "notch-web:", err)
			}
			return err
		case "pair", "join":
			return runMeshCommand(ctx, args, getenv, stdout, stderr) // mesh.go
		case "notify":
			return runNotify(ctx, args[1:], getenv, stdout, stderr) // notify.go
		case "history":
			return runHistory(ctx, args[1:], getenv, stdout, stderr) // history.go
		case "devices":
			return runDevices(ctx, args[1:], getenv, stdout, stderr) // devices.go
		case "launch":
			return runLaunch(ctx, args[1:], getenv, stdout, stderr) // launch.go
		case "service":
			return runService(ctx, args[1:], getenv, stdout, stderr) // service.go
		case "doctor":
			return runDoctor(ctx, args[1:], getenv, stdout, stderr) // doctor.go
		case "mcp":
			return runMCP(ctx, args[1:], getenv, os.Stdin, stdout, stderr) // mcp.go
		case "statusline":
			return runStatusline(ctx, args[1:], getenv, os.Stdin, stdout, stderr) // statusline.go
		case "--version", "-version":
			fmt.Fprintln(stdout, versionLine())
			return nil
		case "run":
			args = args[1:] // notch-web run [flags] is notch-web [flags]
		default:
			if strings.HasPrefix(args[0], "-") {
				break
			}
			err := unknownCommand(args[0])
			fmt.Fprintln(stderr, "notch-web:", err)
			return err
		}
	}
	cfg, err := parseFlags(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return nil
	}
	level := slog.LevelInfo
	if cfg != nil {
		level = cfg.level
	}
	log, quiet := logx.NewQuiet(stderr, level, logx.DefaultRepeatWindow)
	started := false
	if err == nil {
		started, err = serve(ctx, cfg, getenv, log, quiet, stdout)
	}
	if err != nil {
		reportFatal(stderr, log, started, err) // fatal.go
		quiet.Flush()
	}
	return err
}

// paths are the files notch-web keeps under the DSH home.
type paths struct {
	pane, manual, devices string
}

func pathsOf(c *config) paths {
	return paths{
		pane:    filepath.Join(c.dshHome, "state", "agents-notch", "settings.json"),
		manual:  filepath.Join(c.dshHome, "state", "session-finished", "manual.json"),
		devices: devicesPath(c.dshHome),
	}
}

// serve builds the program from cfg and runs it until ctx ends. Errors
// before the URL is printed are start-up errors (started is false).
func serve(ctx context.Context, cfg *config, getenv func(string) string, log *slog.Logger, quiet *logx.Quiet, stdout io.Writer) (started bool, err error) {
	p := pathsOf(cfg)
	if cfg.window != "" {
		if err := window.CheckProgram(cfg.window); err != nil {
			return false, fmt.Errorf("--window: %w", err)
		}
	}
	// A directory notch-web cannot write is a start-up error, not an ERROR
	// every 340 ms for ever after.
	dirs := []string{filepath.Dir(p.pane), filepath.Dir(p.manual)}
	if cfg.follow == "" {
		dirs = append(dirs, filepath.Dir(cfg.statePath))
	}
	for _, d := range dirs {
		if err := fsx.CheckWritable(d); err != nil {
			return false, err
		}
	}

	svc := settings.NewService(settings.Options{
		HomePatch: cfg.homePatch, PatchPaths: cfg.patches, ExplicitPatches: true, RowID: cfg.rowID,
		PanePath: p.pane, Log: log,
	})
	devices, err := security.OpenDevices(p.devices, nil)
	if err != nil {
		return false, err
	}
	for _, d := range devices.List() {
		if !d.Role.Valid() { // a hand-edited role: refused, never widened
			log.Warn("a paired device's role in devices.json is not one this build knows: the device is refused until its role is set (notch-web devices role NAME ROLE)",
				"log_type", logx.TypeSecurity, slog.Group("data", "device", d.Name, "id", d.ID, "file", p.devices))
		}
	}
	tlsConfig, err := loadTLS(cfg.mesh.tlsCert, cfg.mesh.tlsKey) // nil without --tls-cert (devices.go)
	if err != nil {
		return false, err
	}
	locks := security.New(security.Config{AllowHosts: cfg.allowHosts, HarnessOrigins: cfg.harnessOrigins, Devices: devices, Log: log})

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return false, listenError(cfg.addr, err, getenv)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	locks.SetPort(port)
	if tlsConfig != nil {
		// https for a phone, plain http for the hooks and the command line
		// on this machine, on the one port.
		ln = tlsmux.New(ln, tlsConfig, log)
	}

	hcfg := host.Config{
		Board:     host.BoardConfig{HostPid: os.Getpid(), RetireAfter: cfg.retireAfter},
		Follow:    cfg.follow,
		StatePath: cfg.statePath, ManualPath: p.manual,
		Demo: cfg.demo, Window: cfg.window, DSHHome: cfg.dshHome, Log: log,
		Approvals: host.ApprovalConfig{Off: cfg.approvals == "off", Hold: cfg.approvalHold},
		SteerOff:  cfg.steer == "off",
		MCPSteer:  cfg.mcpSteer,
	}
	if cfg.finishedURL != "" {
		hcfg.Board.FinishedURL = &cfg.finishedURL
	}
	if cfg.openURL != "" {
		hcfg.Board.OpenURL = &cfg.openURL
	}
	node, err := openMesh(ctx, cfg, p.manual, log) // nil unless --hub, --join or --nats (mesh.go)
	if err != nil {
		ln.Close()
		return false, err
	}
	if node != nil {
		hcfg.Remote = node.Remote()
	}
	h := host.New(hcfg, svc)
	hist, err := openHistory(cfg, h, log) // nil in follow mode or with --history off (history.go)
	if err != nil {
		ln.Close()
		return false, err
	}
	if hist != nil {
		defer hist.Close()
	}
	if node != nil && hist != nil {
		// A machine's history feeds the hub's; the hub takes every
		// machine's (host/mesh/feed.go).
		if err := node.SetHistory(hist); err != nil {
			ln.Close()
			return false, err
		}
	}
	if cfg.follow == "" && !cfg.demo {
		// Sessions started from the board, as this machine's own launch
		// file allows (host/launch); off until it allows something.
		machine := ""
		if node != nil {
			machine = node.Name()
		}
		h.SetLauncher(launch.New(launch.Options{Path: launch.PathIn(cfg.dshHome), Home: homeDir(getenv, runtime.GOOS), Getenv: getenv}), machine)
	}
	hub := web.NewHub(h, svc, log, fdlimit.Streams())
	// The streams' heartbeat keeps state.json's beat, on its wake-up
	// (issue 34); a follower keeps no beat, and its fan-out its own time.
	if h.OnBeat(hub.Beat) {
		hub.Clock = state.Heartbeat
	}
	hub.Devices = devices
	if node != nil && node.Remote() != nil {
		hub.Mesh = node // the pane lists the machines
	}
	if node != nil {
		hub.Link = node // a joined machine's board says why it is not on its hub
	}
	base := baseURL(cfg.addr, port)
	// The board and the pane say when an agent's hooks leave its settings
	// (hookwatch.go); the pane's Reinstall puts them back, pointing here.
	var hooks *hookWatch
	if cfg.follow == "" && !cfg.demo {
		hooks = newHookWatch(homeDir(getenv, runtime.GOOS), base, getenv, log)
		words := boardWords{hooks: hooks}
		if node != nil {
			words.link = node
		}
		hub.Link, hub.Hooks = words, hooks
		h.OnSilence(hooks.setSilent) // a hook channel silent while its agent works (host/silence.go)
	}
	webPush := openWebPush(cfg, getenv, devices, log)             // nil in follow mode (push.go)
	pusher := openPush(cfg, h, node, base, webPush, devices, log) // nil in follow mode
	if pusher != nil {
		hub.Pushes = pushesSource{pusher}
	}
	srv := web.New(web.Deps{
		Settings: svc, Host: h, Hub: hub, Locks: locks, Log: log, Push: pusher, Store: hist,
		WebPush: webPush, PairBase: pairBase(cfg, port, tlsConfig != nil),
		Static: static.FS, ManualPath: p.manual, OpenDoor: cfg.openURL, Version: version(),
	})
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ConnContext:       web.ConnContext,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Open streams end through the hub, which Shutdown would wait for.
	httpSrv.RegisterOnShutdown(hub.Close)

	// Commands given only the DSH home find this host (hostfile.go); a
	// follower shares its DSH home with nobody's hooks, and says nothing.
	if cfg.follow == "" {
		if unwrite, err := writeHostFile(cfg.dshHome, base, tlsConfig != nil, cfg.allowHosts, time.Now()); err != nil {
			log.Warn("cannot write host.json: commands given only --dsh-home will not find this host", "log_type", logx.TypeHost, logx.Err("HostFileError", err))
		} else {
			defer unwrite()
		}
	}
	shown := shownURL(cfg, base, port, tlsConfig != nil)
	fmt.Fprintln(stdout, shown)
	startRecord(log, cfg, p, base, shown, pusher, tlsConfig != nil, hub.MaxStreams)
	if !cfg.explicitPatches {
		if _, err := os.Stat(cfg.homePatch); errors.Is(err, os.ErrNotExist) {
			log.Info("no patch file: the built-in defaults are in use (a plugin row there is read as soon as it appears)",
				"log_type", logx.TypeSettings, slog.Group("data", "file", cfg.homePatch))
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	logx.Go(g, log, func() error {
		if err := httpSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serving: %w", err)
		}
		return nil
	})
	logx.Go(g, log, func() error {
		<-gctx.Done()
		log.Info("shutting down", "log_type", logx.TypeHost, slog.Group("data", "reason", context.Cause(gctx).Error()))
		// Requests in flight get a moment to finish; then what is left —
		// a connection a browser opened ahead and never used, which
		// Shutdown would wait five seconds for — is closed.
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := httpSrv.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
			return httpSrv.Close()
		} else if err != nil {
			return err
		}
		return nil
	})
	if cfg.pprof != "" {
		logx.Go(g, log, func() error { return servePprof(gctx, cfg.pprof) })
	}
	logx.Go(g, log, func() error { return quiet.Run(gctx) })
	logx.Go(g, log, func() error { return svc.Watch(gctx) })
	logx.Go(g, log, func() error { hub.Run(gctx); return nil })
	logx.Go(g, log, func() error { return h.Run(gctx) })
	if hooks != nil {
		logx.Go(g, log, func() error { return hooks.Run(gctx) })
	}
	if pusher != nil {
		logx.Go(g, log, func() error { return pusher.Run(gctx) })
	}
	if hist != nil {
		logx.Go(g, log, func() error { return hist.Run(gctx) })
	}
	if node != nil {
		node.SetAnswerer(h.Answer) // the hub's answers for this machine's cards
		node.SetSteerer(h.Steer)   // the hub's Reply and Stop for this machine's rows
		node.SetChanger(h.Changes) // the hub's asks for this machine's rows' Changes
		node.SetLauncher(h)        // the hub's starts, as this machine's launch file allows
		logx.Go(g, log, func() error { return node.Run(gctx, h.Board()) })
	}
	err = g.Wait()
	log.Info("stopped", "log_type", logx.TypeHost)
	quiet.Flush() // repeats held back during the shutdown go out last
	return true, err
}

// baseURL is the URL a browser on this machine opens.
func baseURL(addr string, port int) string {
	host := addr[:strings.LastIndex(addr, ":")]
	if host == "" || host == "0.0.0.0" || host == "[::]" {
		host = "127.0.0.1"
	}
	return fmt.Sprintf("http://%s", net.JoinHostPort(strings.Trim(host, "[]"), fmt.Sprint(port)))
}

// shownURL is the board's address as the first line of stdout says it:
// with --tls-cert the https one a browser opens (the name the certificate
// is for, --allow-host's first, when there is one), else base's.
func shownURL(cfg *config, base string, port int, tlsOn bool) string {
	if tlsOn {
		u, _ := pairBase(cfg, port, true)()
		return strings.TrimRight(u, "/") + "/agents-notch/"
	}
	return base + "/agents-notch/"
}

// startRecord logs where everything lives, so one line answers "which files
// is it using, where do my agents point, and who may reach it": the URL
// shown, whether it serves TLS, the extra names it answers to
// (--allow-host), where pushes link (--public-url) and the push channels.
func startRecord(log *slog.Logger, cfg *config, p paths, base, shown string, pusher *push.Engine, tlsOn bool, maxStreams int) {
	mode := "host"
	if cfg.follow != "" {
		mode = "follow"
	}
	files := []any{"settingsJson", p.pane, "manualJson", p.manual, "devicesJson", p.devices, "patches", append([]string{cfg.homePatch}, cfg.patches...)}
	if cfg.follow == "" {
		files = append(files, "stateJson", cfg.statePath)
	} else {
		files = append(files, "followed", cfg.follow)
	}
	var hooks []any
	for _, a := range install.Agents {
		hooks = append(hooks, a, base+install.HookPath(a))
	}
	hooks = append(hooks, "events", base+"/agents-notch/events")
	log.Info("serving", "log_type", logx.TypeHost, slog.Group("data",
		"url", base+"/agents-notch/", "mode", mode, "version", version(), "dshHome", cfg.dshHome,
		slog.Group("files", files...),
		slog.Group("hooks", hooks...),
		"demo", cfg.demo, "window", cfg.window, "maxStreams", maxStreams,
		"shown", shown, "tls", tlsOn, "allowHosts", []string(cfg.allowHosts), "publicUrl", cfg.publicURL,
		"channels", channelNames(pusher)))
}

// channelNames are the push channels' names, as the pane lists them.
func channelNames(e *push.Engine) []string {
	names := []string{}
	if e == nil {
		return names
	}
	for _, v := range e.Views() {
		names = append(names, v.Type+" "+v.Name)
	}
	return names
}
