package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves the runtime profiles on their own loopback listener,
// never on the public mux, until ctx ends.
func servePprof(ctx context.Context, addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	// Closed when ctx ends, by context.AfterFunc: no goroutine of ours
	// waits the host's life out for it.
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
