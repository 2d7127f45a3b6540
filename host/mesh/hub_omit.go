//go:build notch_omit_hub

package mesh

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrBuiltWithoutHub is --hub's refusal in a notch-web built with the tag
// notch_omit_hub: the embedded NATS server is not linked in. Such a build
// still joins a hub (--join) and uses a deployment (--nats); it leaves out
// nats-server, whose process sampler wakes every notch-web that links it
// once a second (docs/performance.md).
var ErrBuiltWithoutHub = errors.New("this notch-web was built without the hub (-tags notch_omit_hub); build it without that tag to run --hub")

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
