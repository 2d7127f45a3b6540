package push

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// stalled is a channel whose Send waits until its context ends, counting
// how many wait at once.
type stalled struct {
	name string
	mu   *sync.Mutex
	in   *int
	all  chan struct{} // closed once every channel waits at once
	n    int
}

func (s stalled) Name() string { return s.name }
func (s stalled) Send(ctx context.Context, _ Message) error {
	s.mu.Lock()
	*s.in++
	if *s.in == s.n {
		close(s.all)
	}
	s.mu.Unlock()
	<-ctx.Done()
	return ctx.Err()
}
func (stalled) Withdraw(context.Context, string) error { return nil }

// Send a test tries every channel at once, so stalled channels hold it for
// one timeout, not one each: all sixteen are waiting together.
func TestSendTestTriesChannelsTogether(t *testing.T) {
	const n = maxChannels
	var mu sync.Mutex
	in := 0
	all := make(chan struct{})
	var chans []Configured
	for i := range n {
		chans = append(chans, Configured{Channel: stalled{name: fmt.Sprintf("c%d", i), mu: &mu, in: &in, all: all, n: n}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []TestResult, 1)
	go func() { done <- SendTest(ctx, chans, "https://b/", t0) }()
	select {
	case <-all:
	case <-time.After(sendTimeout / 2):
		mu.Lock()
		t.Fatalf("%d of %d channels were tried at once, want all", in, n)
	}
	cancel()
	res := <-done
	if len(res) != n {
		t.Fatalf("%d results", len(res))
	}
	for i, r := range res {
		if r.Channel != fmt.Sprintf("c%d", i) || r.Err == nil {
			t.Errorf("result %d: %+v, want its channel's, in order, an error", i, r)
		}
	}
}
