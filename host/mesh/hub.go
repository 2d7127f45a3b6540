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

	"github.com/notch-web/notch-web/internal/logx"
)

// Subjects and buckets. A machine publishes its board and presence as KV
// entries keyed by its name, and listens under notch.<name>.>.
const (
	boardsBucket   = "notch-boards"
	presenceBucket = "notch-presence"
	pairUser       = "notch-pair"
	pairSubject    = "notch.pair."
)

// DefaultHubAddr is where the hub listens for machines: every interface,
// NATS's leaf port (machines live elsewhere; TLS and nkeys guard it).
const DefaultHubAddr = ":7422"

// hub is the embedded NATS server and what it knows of paired machines.
type hub struct {
	dir  string
	name string
	ns   *server.Server
	self nkeys.KeyPair // the hub's own in-process user
	fp   string
	log  *slog.Logger

	mu       sync.Mutex
	machines []Paired            // machines.json
	clients  map[string][]uint64 // a machine's recent connections, to end them on revoke
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
	h := &hub{dir: dir, name: name, self: self, fp: Fingerprint(cert.Certificate[0]), log: log, clients: map[string][]uint64{}}
	var mj machinesJSON
	if err := readJSON(filepath.Join(dir, machinesFile), &mj); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	h.machines = mj.Machines
	opts := &server.Options{
		ServerName:                 "notch-hub",
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
	opts = append([]nats.Option{nats.InProcessServer(h.ns), nats.Name("notch-hub"), nats.Nkey(pub, h.self.Sign), nats.MaxReconnects(-1)}, opts...)
	return nats.Connect("", opts...)
}

// Check decides who may connect (server.Authentication): the hub itself;
// a paired machine, by its nkey's signature of the server's nonce, limited
// to its own subjects; or a machine pairing with a join code's secret,
// limited to the pairing service.
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
			c.RegisterUser(&server.User{Username: "notch-hub"})
			return true
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		i := slices.IndexFunc(h.machines, func(m Paired) bool { return m.Nkey == o.Nkey && m.RevokedMs == 0 })
		if i < 0 {
			return false
		}
		name := h.machines[i].Name
		c.RegisterUser(&server.User{Username: name, Permissions: machinePerms(name)})
		ids := append(h.clients[name], c.GetID())
		h.clients[name] = ids[max(0, len(ids)-8):]
		return true
	case o.Username == pairUser:
		id, secret, _ := strings.Cut(o.Password, ".")
		found := false
		_ = withPairs(h.dir, func(p *pairsJSON) (bool, error) {
			_, found = findPair(p, id, secret)
			return false, nil
		})
		if !found {
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

// pairInbox is the inbox prefix of a pairing connection.
func pairInbox(id string) string { return "_pair_" + id }

// machinePerms are a paired machine's: its own KV keys and subjects only,
// and replies to the hub's requests (a machine hears only its own, so it
// cannot answer for another).
func machinePerms(name string) *server.Permissions {
	return &server.Permissions{
		// Its own subjects, but not the requests only the hub sends it:
		// answers to its approvals and close-outs.
		Publish: &server.SubjectPermission{Allow: []string{
			"$KV." + boardsBucket + "." + name,
			"$KV." + presenceBucket + "." + name,
			"notch." + name + ".>",
		}, Deny: []string{approveSubject(name), "notch." + name + ".finish"}},
		Subscribe: &server.SubjectPermission{Allow: []string{"notch." + name + ".>"}},
		Response:  &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute},
	}
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

// pairRequest is what a joining machine sends; pairReply the answer.
type pairRequest struct {
	Name string `json:"name"`
	Nkey string `json:"nkey"`
}

type pairReply struct {
	OK    bool   `json:"ok"`
	Hub   string `json:"hub,omitempty"`
	Error string `json:"error,omitempty"`
}

// servePairing answers pairing requests on nc.
func (h *hub) servePairing(nc *nats.Conn) error {
	_, err := nc.Subscribe(pairSubject+"*", func(m *nats.Msg) {
		id := strings.TrimPrefix(m.Subject, pairSubject)
		rep := h.pair(id, m.Data, time.Now())
		b, _ := json.Marshal(rep)
		_ = m.Respond(b)
	})
	return err
}

// pair records a machine for a join code's secret, once.
func (h *hub) pair(id string, body []byte, now time.Time) pairReply {
	var req pairRequest
	if len(body) > 4096 || json.Unmarshal(body, &req) != nil {
		return pairReply{Error: "the pairing request is malformed"}
	}
	if err := CheckName(req.Name); err != nil {
		return pairReply{Error: err.Error()}
	}
	if !nkeys.IsValidPublicUserKey(req.Nkey) {
		return pairReply{Error: "the pairing request carries no valid nkey"}
	}
	var rep pairReply
	err := withPairs(h.dir, func(p *pairsJSON) (bool, error) {
		i := slices.IndexFunc(p.Pairs, func(r pairRec) bool { return r.ID == id })
		if i < 0 {
			rep.Error = "this join code is unknown to the hub"
			return false, nil
		}
		r := &p.Pairs[i]
		switch {
		case r.UsedMs != 0:
			rep.Error = fmt.Sprintf("this join code was already used (by %s at %s): run notch-web pair on the hub for a new one",
				r.UsedBy, time.UnixMilli(r.UsedMs).UTC().Format("15:04:05 UTC"))
			return false, nil
		case now.UnixMilli() > r.ExpiresMs:
			rep.Error = fmt.Sprintf("this join code expired at %s (codes last %v): run notch-web pair on the hub for a new one",
				time.UnixMilli(r.ExpiresMs).UTC().Format("15:04:05 UTC"), CodeTTL)
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
	if req.Name == h.name {
		return fmt.Sprintf("%q is the hub's own name: join with --machine NAME", req.Name)
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

// ErrNotPaired: revoking a machine the hub has not paired.
var ErrNotPaired = errors.New("no such paired machine")

// revoke forgets a machine's nkey and ends its connections at once.
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
	ids := h.clients[name]
	delete(h.clients, name)
	h.mu.Unlock()
	for _, id := range ids {
		_ = h.ns.DisconnectClientByID(id) // gone already is fine
	}
	h.log.Info("machine revoked", "log_type", logx.TypeMesh, slog.Group("data", "machine", name, "connections", len(ids)))
	return nil
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
