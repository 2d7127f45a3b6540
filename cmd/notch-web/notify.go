package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/notch-web/notch-web/host/push"
)

const notifyUsage = `usage: notch-web notify test [--dsh-home DIR] [--url URL]

Sends a test message to every push channel — the devices that chose "Push
to this device" in the pane (Web Push), and the ntfy topics and webhooks of
$DSH_HOME/state/agents-notch/notify.json (mode 0600: it holds tokens) — and
says per channel whether it was taken; the pane's Send a test does the same. --url is where a click on the test message
goes (default http://127.0.0.1:7340/agents-notch/). docs/pushes.md has the
file's shape. Exits non-zero when a channel refused the message or there
is none.
`

// runNotify is "notch-web notify test".
func runNotify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web notify:", err)
		return err
	}
	if len(args) == 0 {
		return fail(errors.New("want a subcommand: notch-web notify test (notch-web notify -h)"))
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, fit(notifyUsage))
		return nil
	}
	if args[0] != "test" {
		return fail(fmt.Errorf("unknown subcommand %q: want notch-web notify test", args[0]))
	}
	fs := flag.NewFlagSet("notch-web notify test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	home := fs.String("dsh-home", "", "")
	board := fs.String("url", "http://"+DefaultAddr+"/agents-notch/", "")
	if err := fs.Parse(args[1:]); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, fit(notifyUsage))
		return nil
	} else if err != nil {
		return fail(fmt.Errorf("%v (notch-web notify -h)", err))
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q (notch-web notify -h)", fs.Arg(0)))
	}
	dsh, err := dshHomeOf(*home, getenv)
	if err != nil {
		return fail(err)
	}
	path := notifyPath(dsh)
	cfg, warn, err := push.LoadConfig(path)
	if err != nil && !errors.Is(err, push.ErrNoConfig) {
		return fail(err)
	}
	if warn != "" {
		fmt.Fprintln(stderr, "notch-web notify: warning:", warn)
	}
	var chans []push.Configured
	// The devices that chose Push to this device (their subscriptions are
	// beside notify.json).
	dir := filepath.Dir(path)
	if _, err := os.Stat(filepath.Join(dir, push.SubscriptionsFile)); err == nil {
		chans = append(chans, push.Configured{Channel: push.NewWebPush(push.WebPushOptions{Dir: dir})})
	}
	for _, n := range cfg.Ntfy {
		chans = append(chans, push.Configured{Channel: push.NewNtfy(n, nil), Config: n.ChannelConfig})
	}
	for _, w := range cfg.Webhooks {
		chans = append(chans, push.Configured{Channel: push.NewWebhook(w, nil), Config: w.ChannelConfig})
	}
	if len(chans) == 0 {
		return fail(fmt.Errorf("no channels: no device chose Push to this device, and no ntfy topic or webhook is in %s (docs/pushes.md shows one)", path))
	}
	failed := 0
	for _, r := range push.SendTest(ctx, chans, *board, time.Now()) {
		if r.Err != nil {
			failed++
			fmt.Fprintf(stdout, "%s: not sent: %v\n", r.Channel, r.Err)
			continue
		}
		fmt.Fprintf(stdout, "%s: sent\n", r.Channel)
	}
	if failed > 0 {
		return fail(fmt.Errorf("%d of %d channels refused the test", failed, len(chans)))
	}
	return nil
}
