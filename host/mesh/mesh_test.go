//go:build notch_hub

package mesh

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// testHub opens a hub Node on a free loopback port in a fresh DSH home.
func testHub(tb testing.TB) *Node {
	tb.Helper()
	n, err := Open(context.Background(), Config{DSHHome: tb.TempDir(), Name: "hub", Hub: true, HubAddr: "127.0.0.1:0"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(n.Close)
	return n
}

// testMachine pairs a machine with hub directly (as the pairing service
// does) and runs it, publishing a board of its own.
func testMachine(tb testing.TB, hub *Node, name string) (*host.Board, func()) {
	tb.Helper()
	kp, _ := nkeys.CreateUser()
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	if msg := hub.hub.add(pairRequest{Name: name, Nkey: pub}, time.Now()); msg != "" {
		tb.Fatal(msg)
	}
	home := tb.TempDir()
	cr := Creds{Hub: fmt.Sprintf("127.0.0.1:%d", hub.Port()), Fingerprint: hub.hub.fp, Machine: name, Seed: string(seed)}
	if err := writeJSON(filepath.Join(Dir(home), joinFile), cr); err != nil {
		tb.Fatal(err)
	}
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	b := host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)
	n, err := Open(context.Background(), Config{DSHHome: home, Join: true})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = n.Run(ctx, b); close(done) }()
	stop := func() { cancel(); <-done }
	tb.Cleanup(stop)
	return b, stop
}

// hubRow returns a machine's row as the hub holds it.
func hubRow(n *Node, machine, id string) (state.Session, bool) {
	n.remote.mu.Lock()
	defer n.remote.mu.Unlock()
	m := n.remote.machines[machine]
	if m == nil || m.doc == nil {
		return state.Session{}, false
	}
	for _, s := range m.doc.Sessions {
		if s.ID == id {
			return s, true
		}
	}
	return state.Session{}, false
}

// watchHub returns a channel woken on every change of the hub's remote.
func watchHub(n *Node) <-chan struct{} {
	ch := make(chan struct{}, 1)
	n.remote.Attach(func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	return ch
}

func TestMachineRowsReachTheHub(t *testing.T) {
	hub := testHub(t)
	b, stop := testMachine(t, hub, "alpha")
	if _, err := b.Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: "s1", Cwd: "/src/argon"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "alpha's row on the hub", func() bool {
		ms := hub.Machines()
		s, ok := hubRow(hub, "alpha", "s1")
		return ok && s.Project == "argon" && len(ms) == 1 && ms[0].Present
	})
	d := hub.remote.Compose(state.Document{Settings: settings.Defaults}, time.Now())
	if len(d.Sessions) != 1 || d.Sessions[0].ID != "alpha/s1" || d.Sessions[0].Project != "argon" {
		t.Fatalf("one machine: rows %+v; want alpha/s1 unlabelled", d.Sessions)
	}
	// A machine that stops says so: unknown at once, not at the key's expiry.
	stop()
	deadline := time.Now().Add(DefaultPresenceTTL / 2)
	for {
		ms := hub.Machines()
		if len(ms) == 1 && ms[0].Name == "alpha" && ms[0].Paired && ms[0].Sessions == 1 && !ms[0].Present {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stopped machine: %+v; want alpha, paired, 1 session, not present", ms)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if u := hub.remote.Unknown(); !u["alpha/s1"] {
		t.Errorf("unknown rows %v, want alpha/s1", u)
	}
}

// BenchmarkMachineToHub is the latency a change on a machine takes to reach
// the hub's board: Ingest on the machine's board, publish (TLS loopback),
// JetStream KV, the hub's watcher, the decode — up to the hub board's change
// signal, from which a hub tab is served as any local change is. It reports
// p50 and p99.
func BenchmarkMachineToHub(b *testing.B) {
	hub := testHub(b)
	board, _ := testMachine(b, hub, "alpha")
	woke := watchHub(hub)
	for i := range 20 {
		_, _ = board.Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: fmt.Sprint("s", i), Cwd: "/src/p"}}, time.Now())
	}
	time.Sleep(500 * time.Millisecond)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		title := fmt.Sprint("t", i)
		for len(woke) > 0 {
			<-woke
		}
		start := time.Now()
		_, _ = board.Ingest([]state.Event{{Type: state.TypeSessionTitled, Session: "s7", Title: title}}, start)
		for {
			<-woke
			if s, _ := hubRow(hub, "alpha", "s7"); s.Title == title {
				break
			}
		}
		lat = append(lat, time.Since(start))
		time.Sleep(25 * time.Millisecond) // one change at a time, past the machine's burst pace
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkFiftyMachines is issue 21's load: 50 machines × 20 sessions, 5
// hooks a second each (5,000 events/s in all) for the benchmark's time,
// then a final state per session; it fails unless the hub holds every
// machine's final state of every session. It reports how long the hub took
// to have them all after the last event, and the board publishes the hub
// took in.
func BenchmarkFiftyMachines(b *testing.B) {
	const machines, sessions, rate = 50, 20, 5
	for b.Loop() {
		hub := testHub(b)
		boards := make([]*host.Board, machines)
		for m := range machines {
			boards[m], _ = testMachine(b, hub, fmt.Sprint("m", m))
		}
		var puts sync.WaitGroup
		load := 5 * time.Second
		start := time.Now()
		for m, bd := range boards {
			puts.Add(1)
			go func() {
				defer puts.Done()
				tick := time.NewTicker(time.Second / rate)
				defer tick.Stop()
				n := 0
				for time.Since(start) < load {
					<-tick.C
					n++
					evs := make([]state.Event, 0, sessions)
					for s := range sessions {
						id := fmt.Sprint("s", s)
						if n == 1 {
							evs = append(evs, state.Event{Type: state.TypeSessionOpened, Session: id, Cwd: fmt.Sprintf("/src/m%d", m)})
						}
						evs = append(evs, state.Event{Type: state.TypeSessionTitled, Session: id, Title: fmt.Sprint("step ", n)})
					}
					_, _ = bd.Ingest(evs, time.Now())
				}
				final := make([]state.Event, 0, sessions)
				for s := range sessions {
					final = append(final, state.Event{Type: state.TypeSessionTitled, Session: fmt.Sprint("s", s), Title: fmt.Sprintf("final m%d s%d", m, s)})
				}
				_, _ = bd.Ingest(final, time.Now())
			}()
		}
		puts.Wait()
		last := time.Now()
		deadline := last.Add(10 * time.Second)
		for {
			wrong := 0
			for m := range machines {
				for s := range sessions {
					if r, _ := hubRow(hub, fmt.Sprint("m", m), fmt.Sprint("s", s)); r.Title != fmt.Sprintf("final m%d s%d", m, s) {
						wrong++
					}
				}
			}
			if wrong == 0 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d sessions not in their final state on the hub 10 s after the last event", wrong, machines*sessions)
			}
			time.Sleep(10 * time.Millisecond)
		}
		b.ReportMetric(float64(time.Since(last).Microseconds())/1000, "converge-ms")
		var ms []string
		for _, m := range hub.Machines() {
			ms = append(ms, m.Name)
		}
		sort.Strings(ms)
		if len(ms) != machines {
			b.Fatalf("the hub lists %d machines, want %d", len(ms), machines)
		}
	}
}
