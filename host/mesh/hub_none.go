//go:build !notch_hub

package mesh

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrBuiltWithoutHub is --hub's refusal in a notch-web built without the
// tag notch_hub, as a plain go install builds it: the embedded NATS server
// is not linked in, because nats-server's package starts a process sampler
// from its init that wakes every binary linking it once a second, hub or
// not (docs/performance.md). Such a build still joins a hub (--join) and
// uses a deployment (--nats); only the hub's machine needs the tag.
var ErrBuiltWithoutHub = errors.New("this notch-web was built without the hub; build the hub's with: go install -tags notch_hub ./cmd/notch-web")

// hub is absent from this build: startHub always refuses, so no method
// below is ever reached.
type hub struct {
	name     string
	onChange func()
}

func startHub(dir, name, addr, certFile, keyFile string, log *slog.Logger) (*hub, error) {
	return nil, ErrBuiltWithoutHub
}

func (h *hub) Port() int                                       { return 0 }
func (h *hub) connect(opts ...nats.Option) (*nats.Conn, error) { return nil, ErrBuiltWithoutHub }
func (h *hub) servePairing(nc *nats.Conn) error                { return ErrBuiltWithoutHub }
func (h *hub) markReady()                                      {}
func (h *hub) active(name string) bool                         { return false }
func (h *hub) known(name string) bool                          { return false }
func (h *hub) paired() []Paired                                { return nil }
func (h *hub) revoke(name string, now time.Time) error         { return ErrBuiltWithoutHub }
func (h *hub) shutdown(ctx context.Context)                    {}
