package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/notch-web/notch-web/host/mesh"

	"github.com/notch-web/notch-web/internal/logx"
)

// meshFlags are the many-machines flags (issue 21). All empty: nothing of
// the mesh starts.
type meshFlags struct {
	hub                      bool
	hubAddr, tlsCert, tlsKey string
	join                     joinFlag
	nats, natsCreds, machine string
}

// joinFlag is --join [CODE]: a bare --join dials the hub this DSH home has
// joined; --join CODE (or --join=CODE) pairs first.
type joinFlag struct {
	set  bool
	code string
}

func (j *joinFlag) String() string   { return j.code }
func (j *joinFlag) IsBoolFlag() bool { return true }
func (j *joinFlag) Set(v string) error {
	j.set = true
	if v != "true" {
		j.code = v
	}
	if v == "false" {
		j.set, j.code = false, ""
	}
	return nil
}

// on reports whether any part of the mesh was asked for.
func (m *meshFlags) on() bool { return m.hub || m.join.set || m.nats != "" }

// declare adds the mesh's flags to fs.
func (m *meshFlags) declare(fs *flag.FlagSet) {
	fs.BoolVar(&m.hub, "hub", false, "be the hub other machines join: an embedded NATS server (TLS, nkeys) on --hub-addr")
	fs.StringVar(&m.hubAddr, "hub-addr", mesh.DefaultHubAddr, "where the hub listens for machines, `HOST:PORT`")
	fs.StringVar(&m.tlsCert, "tls-cert", "", "a certificate `FILE` (PEM), e.g. your tailnet's: the board answers https with it (plain http too, on the same port, for this machine's hooks); the hub (--hub) uses it too (default there: a self-signed one made in the DSH home)")
	fs.StringVar(&m.tlsKey, "tls-key", "", "the key `FILE` of --tls-cert")
	fs.Var(&m.join, "join", "publish this machine's board to the hub it joined (`[CODE]`: pair with a code from notch-web pair first)")
	fs.StringVar(&m.nats, "nats", "", "use an existing NATS deployment at `URL` instead of a hub: publish this board and show every machine's")
	fs.StringVar(&m.natsCreds, "nats-creds", "", "a NATS credentials `FILE` for --nats")
	fs.StringVar(&m.machine, "machine", "", "this machine's `NAME` on the board (default: the host name)")
}

// takeJoinCode moves a join code given as "--join CODE" from the
// positional arguments into the flag, and parses the flags after it.
func (m *meshFlags) takeJoinCode(fs *flag.FlagSet) error {
	if !m.join.set || m.join.code != "" || fs.NArg() == 0 || !strings.HasPrefix(fs.Arg(0), "notch1_") {
		return nil
	}
	m.join.code = fs.Arg(0)
	return fs.Parse(fs.Args()[1:])
}

// check refuses mixes that make no sense, in one line.
func (m *meshFlags) check(follow string) error {
	n := 0
	for _, b := range []bool{m.hub, m.join.set, m.nats != ""} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("--hub, --join and --nats do not mix: a machine is a hub, joins one, or uses an existing NATS")
	case n == 1 && follow != "":
		return errors.New("--follow does not mix with --hub, --join or --nats")
	case (m.tlsCert == "") != (m.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case m.natsCreds != "" && m.nats == "":
		return errors.New("--nats-creds needs --nats URL")
	}
	if m.machine != "" {
		if err := mesh.CheckName(m.machine); err != nil {
			return fmt.Errorf("--machine: %w", err)
		}
	}
	if m.join.code != "" {
		if _, err := mesh.ParseCode(m.join.code); err != nil {
			return fmt.Errorf("--join: %w", err)
		}
	}
	return nil
}

func (m *meshFlags) name() string {
	if m.machine != "" {
		return m.machine
	}
	return mesh.DefaultName()
}

// openMesh starts this machine's part in the mesh, or returns nil when no
// mesh flag was given (then nothing of it exists: no listener, no
// goroutine). --join CODE pairs first.
func openMesh(ctx context.Context, cfg *config, manual string, log *slog.Logger) (*mesh.Node, error) {
	m := &cfg.mesh
	if !m.on() {
		return nil, nil
	}
	if m.join.code != "" {
		cr, err := mesh.Join(ctx, cfg.dshHome, m.join.code, m.name(), time.Now())
		if err != nil {
			return nil, fmt.Errorf("--join: %w", err)
		}
		log.Info("paired with the hub", "log_type", logx.TypeMesh, slog.Group("data", "hub", cr.Hub, "machine", cr.Machine))
	}
	n, err := mesh.Open(ctx, mesh.Config{
		DSHHome: cfg.dshHome, Name: m.name(),
		Hub: m.hub, HubAddr: m.hubAddr, TLSCert: m.tlsCert, TLSKey: m.tlsKey,
		Join: m.join.set, NATS: m.nats, NATSCreds: m.natsCreds,
		ManualPath: manual, Log: log,
	})
	if err != nil {
		return nil, err
	}
	role := "machine"
	if m.hub {
		role = "hub"
	}
	log.Info("many machines: on", "log_type", logx.TypeMesh, slog.Group("data", "role", role, "machine", n.Name(), "hubPort", n.Port()))
	return n, nil
}

// dshHomeOf is --dsh-home, else $DSH_HOME, else ~/.dsh.
func dshHomeOf(flagValue string, getenv func(string) string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if h := getenv("DSH_HOME"); h != "" {
		return h, nil
	}
	home := homeDir(getenv, runtime.GOOS)
	if home == "" {
		return "", errors.New("no DSH home: set DSH_HOME or HOME, or pass --dsh-home DIR")
	}
	return filepath.Join(home, ".dsh"), nil
}

const pairUsage = `usage: notch-web pair [--dsh-home DIR] [--address HOST:PORT]

Prints a one-line join code for the hub whose DSH home this is (run it on
the hub, after notch-web --hub has started there once): the hub's address,
its certificate's SHA-256 and a one-time secret, valid 10 minutes. On the
other machine: notch-web --join CODE (or notch-web join CODE, then --join).
--address is what that machine dials (default: this host's name and the
hub's port).
`

const joinUsage = `usage: notch-web join CODE [--dsh-home DIR] [--machine NAME]

Pairs this machine with the hub that printed CODE (notch-web pair): makes
this machine's nkey, checks the hub's certificate against the code, and
keeps the credentials (mode 0600) in this DSH home. Then run notch-web
--join: this machine's sessions appear on the hub's board.
`

// runMeshCommand is "notch-web pair" and "notch-web join CODE".
func runMeshCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notch-web "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	home := fs.String("dsh-home", "", "the DSH home `DIR`")
	addr := fs.String("address", "", "")
	machine := fs.String("machine", "", "")
	usage := pairUsage
	if args[0] == "join" {
		usage = joinUsage
	}
	code, rest, err := splitAgent(fs, args[1:]) // the code may come before or after the flags
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web "+args[0]+":", err)
		return err
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if err != nil {
		return fail(fmt.Errorf("%v (notch-web %s -h)", err, args[0]))
	}
	dsh, err := dshHomeOf(*home, getenv)
	if err != nil {
		return fail(err)
	}
	switch args[0] {
	case "pair":
		if code != "" || len(rest) > 0 {
			return fail(fmt.Errorf("unexpected argument %q (notch-web pair -h)", code))
		}
		c, err := mesh.NewCode(dsh, *addr, mesh.CodeTTL, time.Now())
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, c.String())
		if *addr != "" {
			fmt.Fprintf(stderr, "the code dials the hub at %s (--address)\n", c.Addr)
		} else {
			_, port, _ := net.SplitHostPort(c.Addr)
			fmt.Fprintf(stderr, "the code dials the hub at %s (this host's name, the hub's port); if the other machine knows this one by another name or address: notch-web pair --address HOST:%s\n", c.Addr, port)
		}
		fmt.Fprintf(stderr, "valid once, until %s: on the other machine run  notch-web --join %s\n", c.Expires.UTC().Format("15:04 UTC"), c)
		return nil
	default: // join
		if code == "" || len(rest) > 0 {
			return fail(errors.New("want one join code: notch-web join CODE (notch-web pair on the hub prints one)"))
		}
		name := *machine
		if name == "" {
			name = mesh.DefaultName()
		}
		cr, err := mesh.Join(ctx, dsh, code, name, time.Now())
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "joined the hub at %s as %q; now run: notch-web --join\n", cr.Hub, cr.Machine)
		return nil
	}
}
