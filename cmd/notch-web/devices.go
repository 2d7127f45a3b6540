package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/notch-web/notch-web/internal/qrcode"
	"github.com/notch-web/notch-web/security"
)

// loadTLS reads --tls-cert and --tls-key: nil, nil when neither is given.
// Each failure is one line naming the flag and what to do.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	for _, f := range []struct{ flag, path string }{{"--tls-cert", certFile}, {"--tls-key", keyFile}} {
		if _, err := os.Stat(f.path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s %s: no such file", f.flag, f.path)
			}
			return nil, fmt.Errorf("%s %s: %v", f.flag, f.path, errors.Unwrap(err))
		}
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s and --tls-key %s: %v (want a PEM certificate and its own PEM private key)", certFile, keyFile, strings.TrimPrefix(err.Error(), "tls: "))
	}
	return &tls.Config{
		Certificates: []tls.Certificate{pair},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"}, // the streams hijack their connection
	}, nil
}

// pairBase is where a phone reaches this host, for the pairing links:
// --public-url when given; else the first --allow-host name over https, with the served port when this host
// serves TLS itself and the name has none (without TLS, the user's own
// https proxy or Tailscale Serve is assumed on 443); with no --allow-host,
// this machine's own address, which only this machine can open.
func pairBase(cfg *config, port int, tlsOn bool) func() (string, string) {
	return func() (string, string) {
		if cfg.publicURL != "" {
			return strings.TrimRight(cfg.publicURL, "/"), ""
		}
		if len(cfg.allowHosts) == 0 {
			scheme := "http"
			if tlsOn {
				scheme = "https"
			}
			return scheme + strings.TrimPrefix(baseURL(cfg.addr, port), "http"),
				"There is no --allow-host, so this link opens on this machine only: for a phone, see the README's On your phone (notch-web --allow-host NAME)."
		}
		h := cfg.allowHosts[0]
		if _, _, err := net.SplitHostPort(h); err == nil {
			return "https://" + h, ""
		}
		if tlsOn {
			return "https://" + net.JoinHostPort(h, strconv.Itoa(port)), ""
		}
		return "https://" + h, "This host serves plain http: the link expects your own https proxy (e.g. Tailscale Serve) to answer at " + h + "."
	}
}

const devicesUsage = `usage: notch-web devices add NAME [--role ROLE] | list | revoke NAME|ID
                         | role NAME|ID ROLE   [--url URL] [--dsh-home DIR]

Pairs phones and other browsers with the running host, which answers a
request that is not plainly local (from another machine, or through a
proxy or Tailscale Serve) only from a paired device.

  add NAME      a one-time pairing link for a device called NAME, and its
                QR code: scan it (or open the link) on the device, once,
                within 10 minutes; the device keeps a cookie (https only)
  --role ROLE   what the device may do (default answer):
                  view    the board, the history
                  answer  + approvals, questions, plans, push actions
                  steer   + Reply and Stop
                  launch  + start sessions
  list          the paired devices: name, id, role, paired, last seen
  revoke NAME   unpair a device by name or id: it is refused at once
  role NAME R   change a device's role: it applies at once, to its open
                board and its push actions too

The command asks the host at URL: --url, else $NOTCH_URL, else the host
that serves the DSH home (--dsh-home, else $DSH_HOME, else ~/.dsh), else
http://` + DefaultAddr + `. The Settings pane's Devices group does the same.
`

// runDevices is "notch-web devices add NAME | list | revoke NAME|ID".
func runDevices(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web devices:", err)
		return err
	}
	fs := flag.NewFlagSet("notch-web devices", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("url", "", "the host's base `URL`")
	home := fs.String("dsh-home", "", "the DSH home `DIR` of the host to ask")
	roleFlag := fs.String("role", "", "the new device's `ROLE`: view, answer, steer or launch")
	verb, rest, err := splitAgent(fs, args) // the verb may come before or after the flags
	if errors.Is(err, flag.ErrHelp) || verb == "help" {
		fmt.Fprint(stdout, fit(devicesUsage))
		return nil
	}
	if err != nil {
		return fail(fmt.Errorf("%v (notch-web devices -h)", err))
	}
	// The name or id may come before or after the flags too.
	arg := ""
	if len(rest) > 0 {
		arg = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return fail(fmt.Errorf("%v (notch-web devices -h)", err))
		}
		rest = fs.Args()
	}
	// role NAME ROLE: its second word, before or after the flags.
	second := ""
	if verb == "role" && len(rest) > 0 {
		second = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return fail(fmt.Errorf("%v (notch-web devices -h)", err))
		}
		rest = fs.Args()
	}
	if len(rest) > 0 {
		return fail(fmt.Errorf("unexpected argument %q (notch-web devices -h)", rest[0]))
	}
	if *roleFlag != "" && verb != "add" {
		return fail(fmt.Errorf("--role is for notch-web devices add; to change a device's role: notch-web devices role NAME ROLE"))
	}
	base := strings.TrimRight(askURL(*url, *home, getenv), "/")
	switch verb {
	case "add":
		if arg == "" {
			return fail(errors.New("want a name: notch-web devices add NAME, e.g. notch-web devices add phone"))
		}
		if err := security.CheckDeviceName(arg); err != nil {
			return fail(err)
		}
		role := security.DefaultRole
		if *roleFlag != "" {
			if role, err = security.ParseRole(*roleFlag); err != nil {
				return fail(fmt.Errorf("--role %q: %v", *roleFlag, err))
			}
		}
		var r struct {
			Name, Role, URL, Expires, Warning string
		}
		if err := askHost(ctx, base, "/agents-notch/devices/add", map[string]string{"name": arg, "role": role.String()}, &r); err != nil {
			return fail(err)
		}
		qr, err := qrcode.Encode(r.URL)
		if err != nil {
			return fail(err)
		}
		fmt.Fprint(stdout, qr.Terminal(isTerminal(stdout)))
		fmt.Fprintln(stdout, r.URL)
		until := r.Expires
		if t, err := time.Parse(time.RFC3339, r.Expires); err == nil {
			until = t.UTC().Format("15:04 UTC")
		}
		fmt.Fprintf(stderr, "scan the code with %s's camera, or open the link there: it pairs one device (role %s), once, until %s\n", r.Name, r.Role, until)
		if r.Warning != "" {
			fmt.Fprintln(stderr, r.Warning)
		}
		return nil
	case "list":
		if arg != "" {
			return fail(fmt.Errorf("unexpected argument %q: notch-web devices list takes none", arg))
		}
		var r struct {
			Devices []struct{ ID, Name, Role, Created, LastSeen string }
		}
		if err := askHost(ctx, base, "/agents-notch/devices", nil, &r); err != nil {
			return fail(err)
		}
		if len(r.Devices) == 0 {
			fmt.Fprintln(stdout, "no device is paired (notch-web devices add NAME pairs one)")
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tID\tROLE\tPAIRED\tLAST SEEN")
		for _, d := range r.Devices {
			seen := d.LastSeen
			if seen == "" {
				seen = "not yet"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name, d.ID, d.Role, d.Created, seen)
		}
		return tw.Flush()
	case "revoke":
		if arg == "" {
			return fail(errors.New("want a device: notch-web devices revoke NAME|ID (notch-web devices list names them)"))
		}
		var r struct {
			Device struct{ ID, Name string }
		}
		if err := askHost(ctx, base, "/agents-notch/devices/revoke", map[string]string{"device": arg}, &r); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "revoked %s (%s): it is refused from its next request\n", r.Device.Name, r.Device.ID)
		return nil
	case "role":
		if arg == "" || second == "" {
			return fail(errors.New("want a device and a role: notch-web devices role NAME|ID view|answer|steer|launch"))
		}
		role, err := security.ParseRole(second)
		if err != nil {
			return fail(fmt.Errorf("%q: %v", second, err))
		}
		var r struct {
			Device struct{ ID, Name, Role string }
			Was    string
		}
		if err := askHost(ctx, base, "/agents-notch/devices/role", map[string]string{"device": arg, "role": role.String()}, &r); err != nil {
			return fail(err)
		}
		if r.Was == r.Device.Role {
			fmt.Fprintf(stdout, "%s (%s) is %s already\n", r.Device.Name, r.Device.ID, r.Device.Role)
			return nil
		}
		fmt.Fprintf(stdout, "%s (%s): %s → %s, from its next request, its open board and its push actions\n", r.Device.Name, r.Device.ID, r.Was, r.Device.Role)
		return nil
	case "":
		return fail(errors.New("want add NAME, list, revoke NAME|ID or role NAME|ID ROLE (notch-web devices -h)"))
	}
	return fail(fmt.Errorf("no verb %q: want add NAME, list, revoke NAME|ID or role NAME|ID ROLE (notch-web devices -h)", verb))
}

// askHost calls the running host: a GET when body is nil, else a JSON
// POST; a refusal is the host's own one-line reason.
func askHost(ctx context.Context, base, path string, body any, reply any) error {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, _ := json.Marshal(body)
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return fmt.Errorf("--url %q: %v", base, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("no notch-web answers at %s: start it, or pass --url URL", base)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		var e struct{ Error string }
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
		return fmt.Errorf("the host at %s answered %s", base, res.Status)
	}
	if err := json.Unmarshal(data, reply); err != nil {
		return fmt.Errorf("the host at %s gave an answer this build does not read (%v): is it another notch-web version?", base, err)
	}
	return nil
}
