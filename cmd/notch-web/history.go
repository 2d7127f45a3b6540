package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/logx"
)

// historyPath is the lasting history's file.
func historyPath(dshHome string) string {
	return filepath.Join(dshHome, "state", "agents-notch", store.File)
}

// openHistory opens the lasting history of a host (none in follow mode or
// with --history off) and hands it the board's facts. A file from a newer
// notch-web stops the start (one clear line); one that cannot be opened
// otherwise is reported and the host runs without it.
func openHistory(cfg *config, h *host.Host, log *slog.Logger) (*store.Store, error) {
	if cfg.follow != "" || cfg.history == "off" {
		return nil, nil
	}
	st, err := store.Open(historyPath(cfg.dshHome), store.Options{Days: cfg.historyDays, MaxBytes: int64(cfg.historyMaxMB) << 20, Log: log})
	if errors.Is(err, store.ErrNewer) {
		return nil, fmt.Errorf("%w (or run with --history off)", err)
	}
	if err != nil {
		log.Error("history unavailable: "+err.Error()+"; the board goes on without it", "log_type", logx.TypeHistory)
		return nil, nil
	}
	h.Board().SetRecorder(st)
	return st, nil
}

const historyUsage = `usage: notch-web history export [--since DATE] [--format jsonl|csv] [--dsh-home DIR]
       notch-web history forget SESSION | --before DATE [--dsh-home DIR]

The lasting history ($DSH_HOME/state/agents-notch/history.db): every
session, turn and answer the host saw, kept --history-days (90) and within
--history-max-mb (512).

  export  writes it to stdout, oldest first: one JSON object per session
          (jsonl, the default) or one CSV row per turn; --since DATE
          (YYYY-MM-DD, local) keeps the sessions that started on or after it
  forget  removes one session (its id, or MACHINE/ID for another machine's)
          or every session that started before DATE

Safe while the host runs (SQLite's own locking; a session still open comes
back with its next event).
`

// runHistory is "notch-web history export|forget".
func runHistory(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web history:", err)
		return err
	}
	if len(args) == 0 {
		return fail(errors.New("want export or forget (notch-web history -h)"))
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, fit(historyUsage))
		return nil
	}
	sub := args[0]
	if sub != "export" && sub != "forget" {
		return fail(fmt.Errorf("unknown subcommand %q: want export or forget (notch-web history -h)", sub))
	}
	fs := flag.NewFlagSet("notch-web history "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	home := fs.String("dsh-home", "", "")
	since := fs.String("since", "", "")
	before := fs.String("before", "", "")
	format := fs.String("format", store.FormatJSONL, "")
	target, rest, err := splitAgent(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, fit(historyUsage))
		return nil
	}
	if err != nil {
		return fail(fmt.Errorf("%v (notch-web history -h)", err))
	}
	if len(rest) > 0 {
		return fail(fmt.Errorf("unexpected argument %q (notch-web history -h)", rest[0]))
	}
	day := func(flagName, v string) (time.Time, error) {
		t, err := time.ParseInLocation("2006-01-02", v, time.Local)
		if err != nil {
			return t, fmt.Errorf("--%s %q: want a day as YYYY-MM-DD", flagName, v)
		}
		return t, nil
	}
	dsh, err := dshHomeOf(*home, getenv)
	if err != nil {
		return fail(err)
	}
	path := historyPath(dsh)
	if _, err := os.Stat(path); err != nil {
		return fail(fmt.Errorf("no history at %s (the host keeps one unless --history off)", path))
	}
	st, err := store.Open(path, store.Options{})
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	// A local file's read or delete is short and is let finish (an
	// interrupted export is a truncated file; SQLite's transaction keeps a
	// forget whole either way).
	ctx = context.WithoutCancel(ctx)
	switch sub {
	case "export":
		if target != "" || *before != "" {
			return fail(errors.New("export takes --since and --format only (notch-web history -h)"))
		}
		var from time.Time
		if *since != "" {
			if from, err = day("since", *since); err != nil {
				return fail(err)
			}
		}
		if *format != store.FormatJSONL && *format != store.FormatCSV {
			return fail(fmt.Errorf("--format %q: want jsonl or csv", *format))
		}
		if err := st.Export(ctx, stdout, from, *format); err != nil {
			return fail(err)
		}
	default: // forget
		var n int
		switch {
		case (target == "") == (*before == ""):
			return fail(errors.New("forget takes one SESSION or --before DATE (notch-web history -h)"))
		case target != "":
			n, err = st.Forget(ctx, target)
		default:
			var t time.Time
			if t, err = day("before", *before); err == nil {
				n, err = st.ForgetBefore(ctx, t)
			}
		}
		if err != nil {
			return fail(err)
		}
		if n == 0 && target != "" {
			return fail(fmt.Errorf("no session %q in the history", target))
		}
		fmt.Fprintf(stdout, "forgot %d session(s)\n", n)
	}
	return nil
}
