//go:build !notch_hub

package main

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/notch-web/notch-web/host/mesh"
)

// A notch-web built without -tags notch_hub (a plain go install) links no
// NATS server: --hub is refused with its reason, and a plain host still
// starts. The tests that start hubs run with the tag (make test runs both).
func TestBuiltWithoutHub(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "DSH_HOME" {
			return home
		}
		return ""
	}
	err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--log-level", "error", "--hub", "--hub-addr", "127.0.0.1:0"}, getenv, io.Discard, io.Discard)
	if !errors.Is(err, mesh.ErrBuiltWithoutHub) {
		t.Fatalf("run --hub = %v, want ErrBuiltWithoutHub", err)
	}
	_, stop := startRun(t)
	if err := stop(); err != nil {
		t.Fatalf("a host without --hub: %v", err)
	}
}
