package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/security"
)

const notifyUsage = `usage: notch-web notify test [--dsh-home DIR] [--url URL]

Sends a test message to every push channel — the devices that chose "Push
to this device" in the pane (Web Push), and the ntfy topics and webhooks of
$DSH_HOME/state/agents-notch/notify.json (mode 0600: it holds tokens) — and
says per channel whether it was taken; the pane's Send a test does the same.

It asks the running host at URL (--url, else $NOTCH_URL, else the host
serving the DSH home, else http://` + DefaultAddr + `) to send it, so what it tests is what the host
pushes to; with no host answering there, it sends from here, from the
files in the DSH home (the host follows notify.json: start it, and it
pushes to what this tested). docs/pushes.md has the file's shape. Exits
non-zero when a channel refused the message or there is none.
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
	g := addGlobals(fs)
	if err := fs.Parse(args[1:]); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, fit(notifyUsage))
		return nil
	} else if err != nil {
		return fail(fmt.Errorf("%v (notch-web notify -h)", err))
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q (notch-web notify -h)", fs.Arg(0)))
	}
	// The host's base URL (an older --url named its board: the same host).
	base := strings.TrimSuffix(g.hostURL(getenv), "/agents-notch")
	results, err := testThroughHost(ctx, base)
	if errors.Is(err, errNoHost) {
		results, err = testFromHere(ctx, g.dshHome, getenv, base+"/agents-notch/", stderr)
		if err == nil {
			fmt.Fprintf(stderr, "notch-web notify: no notch-web answers at %s: sent from here (a host pushes only while it runs)\n", base)
		}
	}
	if err != nil {
		return fail(err)
	}
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
			fmt.Fprintf(stdout, "%s: not sent: %v\n", r.Channel, r.Err)
			continue
		}
		fmt.Fprintf(stdout, "%s: sent\n", r.Channel)
	}
	if failed > 0 {
		return fail(fmt.Errorf("%d of %d channels refused the test", failed, len(results)))
	}
	return nil
}

// errNoHost: no notch-web answers at the URL.
var errNoHost = errors.New("no host")

// testThroughHost asks the running host to send the test (POST
// /agents-notch/notify/test): its channels are the ones it pushes to.
func testThroughHost(ctx context.Context, base string) ([]push.TestResult, error) {
	var r struct {
		Channels []struct {
			Channel string
			OK      bool
			Error   string
		}
	}
	if err := askHost(ctx, base, "/agents-notch/notify/test", struct{}{}, &r); err != nil {
		if strings.HasPrefix(err.Error(), "no notch-web answers") {
			return nil, errNoHost
		}
		return nil, err
	}
	if len(r.Channels) == 0 {
		return nil, fmt.Errorf("no channels: the host at %s has none (no device chose Push to this device, and its notify.json names no ntfy topic or webhook; docs/pushes.md shows one)", base)
	}
	out := make([]push.TestResult, len(r.Channels))
	for i, c := range r.Channels {
		out[i].Channel = c.Channel
		if !c.OK {
			out[i].Err = errors.New(c.Error)
		}
	}
	return out, nil
}

// testFromHere sends the test from the files of the DSH home, as a host
// would: Web Push only to devices still paired, notify.json's channels.
func testFromHere(ctx context.Context, home string, getenv func(string) string, board string, stderr io.Writer) ([]push.TestResult, error) {
	dsh, err := dshHomeOf(home, getenv)
	if err != nil {
		return nil, err
	}
	path := notifyPath(dsh)
	cfg, warn, err := push.LoadConfig(path)
	if err != nil && !errors.Is(err, push.ErrNoConfig) {
		return nil, err
	}
	if warn != "" {
		fmt.Fprintln(stderr, "notch-web notify: warning:", warn)
	}
	var chans []push.Configured
	// The devices that chose Push to this device (their subscriptions are
	// beside notify.json), those still paired: a revoked device's are
	// dropped, as the host drops them.
	dir := filepath.Dir(path)
	if _, err := os.Stat(filepath.Join(dir, push.SubscriptionsFile)); err == nil {
		devices, err := security.OpenDevices(filepath.Join(dir, "devices.json"), nil)
		if err != nil {
			return nil, err
		}
		chans = append(chans, push.Configured{Channel: push.NewWebPush(push.WebPushOptions{Dir: dir, Paired: pairedIn(devices)})})
	}
	for _, n := range cfg.Ntfy {
		chans = append(chans, push.Configured{Channel: push.NewNtfy(n, nil), Config: n.ChannelConfig})
	}
	for _, w := range cfg.Webhooks {
		chans = append(chans, push.Configured{Channel: push.NewWebhook(w, nil), Config: w.ChannelConfig})
	}
	if len(chans) == 0 {
		return nil, fmt.Errorf("no channels: no device chose Push to this device, and no ntfy topic or webhook is in %s (docs/pushes.md shows one)", path)
	}
	return push.SendTest(ctx, chans, board, time.Now()), nil
}
