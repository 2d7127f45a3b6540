//go:build notch_hub

package mesh

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/logx"
)

// hub is the embedded NATS server and what it knows of paired machines.
type hub struct {
	dir  string
	name string
	ns   *server.Server
	self nkeys.KeyPair // the hub's own in-process user
	fp   string
	log  *slog.Logger

	// ready is closed once the hub takes the machines' boards (its
	// subscriptions in place, the stored boards loaded): a machine let in
	// before would send its board on connect to no one, and no more
	// until it changes.
	ready     chan struct{}
	readyOnce sync.Once

	mu       sync.Mutex
	machines []Paired // machines.json
	onChange func()
}

// startHub starts the embedded server: JetStream stored in dir, a TLS
// listener at addr for machines, and the pairing service.
func startHub(dir, name, addr, certFile, keyFile string, log *slog.Logger) (*hub, error) {
	cert, err := hubCert(dir, certFile, keyFile)
	if err != nil {
		return nil, err
	}
	host, portS, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--hub-addr %q: want HOST:PORT, e.g. :7422", addr)
	}
	port, err := strconv.Atoi(portS)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("--hub-addr %q: the port must be a number from 0 to 65535", addr)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	if port == 0 {
		port = server.RANDOM_PORT // nats-server reads 0 as its default, 4222
	}
	self, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	h := &hub{dir: dir, name: name, self: self, fp: Fingerprint(cert.Certificate[0]), log: log, ready: make(chan struct{})}
	var mj machinesJSON
	if err := readJSON(filepath.Join(dir, machinesFile), &mj); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	h.machines = mj.Machines
	opts := &server.Options{
		ServerName:                 hubUser,
		Host:                       host,
		Port:                       port,
		JetStream:                  true,
		StoreDir:                   filepath.Join(dir, storeDir),
		NoSigs:                     true,
		NoLog:                      true,
		MaxPayload:                 1 << 20,
		TLSConfig:                  &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		TLS:                        true,
		TLSTimeout:                 2,
		AlwaysEnableNonce:          true,
		CustomClientAuthentication: h,
		DisableJetStreamBanner:     true,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("the hub's NATS server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("the hub's NATS server did not start listening on %s (in use? --hub-addr picks another)", addr)
	}
	h.ns = ns
	a, _ := ns.Addr().(*net.TCPAddr)
	if a == nil {
		ns.Shutdown()
		return nil, errors.New("the hub's NATS server has no listener")
	}
	if err := writeJSON(filepath.Join(dir, hubInfoFile), HubInfo{Name: name, Port: a.Port, Fingerprint: h.fp}); err != nil {
		ns.Shutdown()
		return nil, err
	}
	return h, nil
}

// Port is the port machines dial.
func (h *hub) Port() int { return h.ns.Addr().(*net.TCPAddr).Port }

// connect opens the hub's own in-process connection.
func (h *hub) connect(opts ...nats.Option) (*nats.Conn, error) {
	pub, _ := h.self.PublicKey()
	opts = append([]nats.Option{nats.InProcessServer(h.ns), nats.Name(hubUser), nats.Nkey(pub, h.self.Sign), nats.MaxReconnects(-1)}, opts...)
	return nats.Connect("", opts...)
}

// Check decides who may connect (server.Authentication): the hub itself;
// a paired machine, by its nkey's signature of the server's nonce, limited
// to its own subjects; or a machine pairing with an unused, unexpired join
// code's secret, limited to the pairing service. A used or expired code
// logs in as nothing.
func (h *hub) Check(c server.ClientAuthentication) bool {
	if c.Kind() != server.CLIENT {
		return false
	}
	o := c.GetOpts()
	switch {
	case o.Nkey != "":
		if !verifyNonce(o.Nkey, o.Sig, c.GetNonce()) {
			return false
		}
		if pub, _ := h.self.PublicKey(); o.Nkey == pub {
			c.RegisterUser(&server.User{Username: hubUser})
			return true
		}
		// A machine waits until the hub takes its board (ready); Open
		// gives up on the hub well before this.
		select {
		case <-h.ready:
		case <-time.After(readyWait):
			return false
		}
		// Under the lock Revoke marks a key under: a connection let in
		// here is one Revoke's sweep finds (revoke).
		h.mu.Lock()
		defer h.mu.Unlock()
		i := slices.IndexFunc(h.machines, func(m Paired) bool { return m.Nkey == o.Nkey && m.RevokedMs == 0 })
		if i < 0 || h.reservedLocked(h.machines[i].Name) {
			return false
		}
		name := h.machines[i].Name
		c.RegisterUser(&server.User{Username: name, Permissions: machinePerms(name)})
		return true
	case o.Username == pairUser:
		id, secret, _ := strings.Cut(o.Password, ".")
		var why string
		_ = withPairs(h.dir, func(p *pairsJSON) (bool, error) {
			r, found := findPair(p, id, secret)
			switch {
			case !found:
				why = "unknown"
			default:
				why = r.unusable(time.Now())
			}
			return false, nil
		})
		if why != "" {
			if why != "unknown" { // the secret matched: someone holds a real code
				h.log.Warn("join code refused", "log_type", logx.TypeMesh, slog.Group("error", "name", "JoinRefused", "message", why))
			}
			return false
		}
		c.RegisterUser(&server.User{Username: pairUser, Permissions: &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: []string{pairSubject + id}},
			Subscribe: &server.SubjectPermission{Allow: []string{pairInbox(id) + ".>"}},
		}})
		return true
	}
	return false
}

// readyWait bounds how long a machine's login waits for the hub to be
// ready (Open's own bound is 10 s).
const readyWait = 15 * time.Second

// markReady lets machines in.
func (h *hub) markReady() { h.readyOnce.Do(func() { close(h.ready) }) }

// machinePerms are a paired machine's: it publishes its own board, cards,
// beat, goodbye and how far its history goes, hears the hub's requests to
// it (the ✕, the answers to its cards, a Reply or Stop, a start, an ask
// for its history), and replies to those. Nothing else: no other machine's
// subjects, no service's, no KV bucket (the hub stores what it takes),
// no JetStream API, and not even the requests only the hub sends it.
func machinePerms(name string) *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			boardSubject(name), cardsSubject(name), beatSubject(name), goneSubject(name), histSaysSubject(name), ledgerSubject(name),
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{finishSubject(name), approveSubject(name), steerSubject(name), histSubject(name), changesSubject(name), launchSubject(name)}},
		Response:  &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute},
	}
}

// reservedLocked reports whether a machine may not be named name: the
// hub's own name and those of its services and users (reservedNames).
func (h *hub) reservedLocked(name string) bool {
	return name == h.name || slices.Contains(reservedNames, name)
}

// verifyNonce checks an nkey's signature of the server's nonce, as
// nats-server does for its own nkey users.
func verifyNonce(pub, sig string, nonce []byte) bool {
	if !nkeys.IsValidPublicUserKey(pub) || len(nonce) == 0 {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		if raw, err = base64.StdEncoding.DecodeString(sig); err != nil {
			return false
		}
	}
	kp, err := nkeys.FromPublicKey(pub)
	return err == nil && kp.Verify(nonce, raw) == nil
}

// servePairing answers pairing requests on nc.
func (h *hub) servePairing(nc *nats.Conn) error {
	_, err := nc.Subscribe(pairSubject+"*", guard(h.log, func(m *nats.Msg) {
		id := strings.TrimPrefix(m.Subject, pairSubject)
		if !strings.HasPrefix(m.Reply, pairInbox(id)+".") {
			return // only the code's own pairing connection is answered
		}
		rep := h.pair(id, m.Data, time.Now())
		b, _ := json.Marshal(rep)
		_ = m.Respond(b)
	}))
	return err
}

// maxPairRequest bounds a pairing request's bytes.
const maxPairRequest = 4096

// parsePairRequest reads a joining machine's request strictly: one JSON
// object of known fields, a machine name, a public user nkey, and a secret
// of a join code's shape.
func parsePairRequest(body []byte) (pairRequest, error) {
	var req pairRequest
	if len(body) > maxPairRequest || jsonx.DecodeOne(body, &req, jsonx.Options{Strict: true}) != nil {
		return pairRequest{}, errors.New("the pairing request is malformed")
	}
	if err := CheckName(req.Name); err != nil {
		return pairRequest{}, err
	}
	if !nkeys.IsValidPublicUserKey(req.Nkey) {
		return pairRequest{}, errors.New("the pairing request carries no valid nkey")
	}
	if !isToken(req.Secret, 16, 64) {
		return pairRequest{}, errors.New("this join code is unknown to the hub")
	}
	return req, nil
}

// pair records a machine for a join code's secret, once. The request
// carries the secret again: the code's id alone (overheard, or in a log)
// pairs nothing.
func (h *hub) pair(id string, body []byte, now time.Time) pairReply {
	req, err := parsePairRequest(body)
	if err != nil {
		return pairReply{Error: err.Error()}
	}
	var rep pairReply
	err = withPairs(h.dir, func(p *pairsJSON) (bool, error) {
		r, found := findPair(p, id, req.Secret)
		if !found {
			rep.Error = "this join code is unknown to the hub"
			return false, nil
		}
		if why := r.unusable(now); why != "" {
			rep.Error = why
			return false, nil
		}
		if msg := h.add(req, now); msg != "" {
			rep.Error = msg
			return false, nil
		}
		r.UsedMs, r.UsedBy = now.UnixMilli(), req.Name
		rep = pairReply{OK: true, Hub: h.name}
		return true, nil
	})
	if err != nil {
		h.log.Error("pairing not recorded", "log_type", logx.TypeMesh, "error", map[string]string{"name": "PairError", "message": err.Error()})
		return pairReply{Error: "the hub could not record the pairing; see its log"}
	}
	if rep.OK {
		h.log.Info("machine paired", "log_type", logx.TypeMesh, slog.Group("data", "machine", req.Name))
		h.changed()
	}
	return rep
}

// add records a paired machine; it returns why not, or "".
func (h *hub) add(req pairRequest, now time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reservedLocked(req.Name) {
		return fmt.Sprintf("%q is a name the hub uses (its own, or a service's): join with --machine NAME", req.Name)
	}
	for _, m := range h.machines {
		if m.Name == req.Name && m.RevokedMs == 0 {
			return fmt.Sprintf("a machine named %q is already paired: revoke it in the hub's pane, or join with --machine NAME", req.Name)
		}
	}
	next := slices.DeleteFunc(slices.Clone(h.machines), func(m Paired) bool { return m.Name == req.Name })
	next = append(next, Paired{Name: req.Name, Nkey: req.Nkey, PairedMs: now.UnixMilli()})
	if err := writeJSON(filepath.Join(h.dir, machinesFile), machinesJSON{next}); err != nil {
		return "the hub could not record the pairing: " + err.Error()
	}
	h.machines = next
	return ""
}

// revoke forgets a machine's nkey and ends every connection of it at once.
// The key is marked under the lock Check holds, so a connection is either
// refused from here on or already presents the key, and the sweep finds
// every such one: the server's own list of connections, by nkey, all of
// them (not a list of recent ones kept here).
func (h *hub) revoke(name string, now time.Time) error {
	h.mu.Lock()
	i := slices.IndexFunc(h.machines, func(m Paired) bool { return m.Name == name && m.RevokedMs == 0 })
	if i < 0 {
		h.mu.Unlock()
		return fmt.Errorf("%w %q", ErrNotPaired, name)
	}
	next := slices.Clone(h.machines)
	next[i].RevokedMs = now.UnixMilli()
	if err := writeJSON(filepath.Join(h.dir, machinesFile), machinesJSON{next}); err != nil {
		h.mu.Unlock()
		return err
	}
	h.machines = next
	key := next[i].Nkey
	h.mu.Unlock()
	n := h.disconnect(key)
	h.log.Info("machine revoked", "log_type", logx.TypeMesh, slog.Group("data", "machine", name, "connections", n))
	return nil
}

// disconnect ends every client connection that presents key, and says
// how many it ended.
func (h *hub) disconnect(key string) int {
	n := 0
	for offset := 0; ; {
		cz, err := h.ns.Connz(&server.ConnzOptions{User: key, Offset: offset, Limit: 1024})
		if err != nil {
			return n
		}
		for _, c := range cz.Conns {
			if h.ns.DisconnectClientByID(c.Cid) == nil {
				n++
			}
		}
		if len(cz.Conns) < 1024 {
			return n
		}
		offset += len(cz.Conns)
	}
}

// active reports whether name is a machine paired here now: not revoked,
// not a name the hub uses. Only an active machine's boards are taken.
func (h *hub) active(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.reservedLocked(name) && slices.ContainsFunc(h.machines, func(m Paired) bool { return m.Name == name && m.RevokedMs == 0 })
}

// paired returns the machines paired now (not revoked).
func (h *hub) paired() []Paired {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(h.machines), func(m Paired) bool { return m.RevokedMs != 0 })
}

// known reports whether name was ever paired here (revoked included).
func (h *hub) known(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.machines, func(m Paired) bool { return m.Name == name })
}

func (h *hub) changed() {
	if h.onChange != nil {
		h.onChange()
	}
}

// shutdown stops the server and waits for it.
func (h *hub) shutdown(ctx context.Context) {
	h.ns.Shutdown()
	done := make(chan struct{})
	go func() { h.ns.WaitForShutdown(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
