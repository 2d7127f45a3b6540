package settings

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// goodValues gives each key a few valid, distinct values.
var goodValues = map[string][]any{
	"scale":          {0.8, 1.25, 1.9},
	"screen":         {"primary", "cursor", "3"},
	"anchor":         {"top-left", "top-right", "top-center"},
	"maxRows":        {3, 7, 10},
	"hideFullscreen": {false, true},
	"opacity":        {0.4, 0.7, 0.9},
	"motion":         {"off", "on", "auto"},
	"showProject":    {false, true},
	"showDone":       {false, true},
	"hoverMode":      {"open", "ghost"},
	"holdMs":         {600, 2222, 3900},
	"topEdgeOpens":   {false, true},
	"ghostOpacity":   {0.1, 0.3, 0.55},
	"alerts":         {"needs-you", "off", "all"},
}

// Many writers through one Service, each changing its own key: every key is
// in the file and in the view at the end, with the value last written.
func TestConcurrentChanges(t *testing.T) {
	const perKey = 20
	f := newFixture(t)
	svc := f.service(t)
	var wg sync.WaitGroup
	var lastMu sync.Mutex
	last := map[string]any{}
	keyMu := map[string]*sync.Mutex{}
	for _, key := range Keys {
		keyMu[key] = new(sync.Mutex)
	}
	for _, key := range Keys {
		for i := range perKey {
			wg.Go(func() {
				v := goodValues[key][i%len(goodValues[key])]
				// One writer per key at a time (so the last value is known);
				// the fourteen keys' writers all race each other.
				keyMu[key].Lock()
				defer keyMu[key].Unlock()
				if _, err := svc.Change(Change{Set: Partial{key: v}}); err != nil {
					t.Errorf("Change %s: %v", key, err)
				}
				lastMu.Lock()
				last[key] = v
				lastMu.Unlock()
			})
		}
	}
	// Readers while the writers run: the view is always whole.
	stop := make(chan struct{})
	var rg sync.WaitGroup
	rg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			v := svc.View()
			for k, x := range v.Stored {
				checkInRange(t, k, x)
			}
		}
	})
	wg.Wait()
	close(stop)
	rg.Wait()

	v := svc.View()
	if len(v.Stored) != len(Keys) {
		t.Errorf("the view holds %d keys, want all %d: %v", len(v.Stored), len(Keys), v.Stored)
	}
	p, w := NewStore(f.pane).Load()
	if len(w) != 0 {
		t.Fatalf("the file has warnings: %+v", w)
	}
	if !reflect.DeepEqual(Partial(last), p) {
		t.Errorf("file = %v\nwant  %v", p, last)
	}
	if !reflect.DeepEqual(v.Stored, p) {
		t.Errorf("view stored = %v\nfile          %v", v.Stored, p)
	}
	for _, k := range Keys {
		if v.Source[k] != SourcePane {
			t.Errorf("Source[%s] = %q, want pane", k, v.Source[k])
		}
	}
}

// The view must follow the file even when writers interleave: the last
// Change to return decides what View shows, not a slower, older one.
func TestConcurrentChangesViewNotStale(t *testing.T) {
	f := newFixture(t)
	svc := f.service(t)
	for round := range 30 {
		var wg sync.WaitGroup
		for i, key := range Keys {
			wg.Go(func() {
				vals := goodValues[key]
				if _, err := svc.Change(Change{Set: Partial{key: vals[(round+i)%len(vals)]}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		p, _ := NewStore(f.pane).Load()
		if v := svc.View(); !reflect.DeepEqual(v.Stored, p) {
			t.Fatalf("round %d: the view shows %v but the file holds %v", round, v.Stored, p)
		}
	}
}

// A Reload racing a Change (the watcher wakes on the Change's own write)
// must not leave the view on the file as it was before the Change.
func TestReloadRacingChange(t *testing.T) {
	f := newFixture(t)
	svc := f.service(t)
	for i := range 100 {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					svc.Reload()
				}
			}
		})
		vals := goodValues["holdMs"]
		want := vals[i%len(vals)]
		if _, err := svc.Change(Change{Set: Partial{"holdMs": want, "scale": 0.8 + float64(i)/1000}}); err != nil {
			t.Fatal(err)
		}
		close(stop)
		wg.Wait()
		p, _ := NewStore(f.pane).Load()
		if v := svc.View(); !reflect.DeepEqual(v.Stored, p) {
			t.Fatalf("iteration %d: after the Change and the reloads settled, the view shows %v but the file holds %v", i, v.Stored, p)
		}
	}
}

const (
	childEnv   = "NOTCH_SETTINGS_TEST_CHILD"
	childKeys  = "NOTCH_SETTINGS_TEST_KEYS"
	childPath  = "NOTCH_SETTINGS_TEST_PATH"
	childTimes = 20
)

// TestChildWriter is the body of a child process of TestTwoProcesses; it
// does nothing in a normal run.
func TestChildWriter(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("only runs as a child of TestTwoProcesses")
	}
	keys := strings.Split(os.Getenv(childKeys), ",")
	path := os.Getenv(childPath)
	for i := range childTimes {
		for _, k := range keys {
			vals := goodValues[k]
			// A fresh Store every time, as a fresh process would have.
			if _, err := NewStore(path).Apply(Change{Set: Partial{k: vals[i%len(vals)]}}); err != nil {
				t.Fatalf("write %s: %v", k, err)
			}
		}
	}
}

// Two processes share one settings.json, each writing its own keys many
// times: the file lock keeps every key of both.
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if os.Getenv(childEnv) == "1" {
		t.Skip("already a child")
	}
	f := newFixture(t)
	halves := [][]string{Keys[:7], Keys[7:]}
	var wg sync.WaitGroup
	errs := make([]error, len(halves))
	outs := make([][]byte, len(halves))
	for i, keys := range halves {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1", childKeys+"="+strings.Join(keys, ","), childPath+"="+f.pane)
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for i := range halves {
		if errs[i] != nil {
			t.Fatalf("child %d: %v\n%s", i, errs[i], outs[i])
		}
		if !strings.Contains(string(outs[i]), "PASS") {
			t.Fatalf("child %d did not run its writes:\n%s", i, outs[i])
		}
	}
	p, w := NewStore(f.pane).Load()
	if len(w) != 0 {
		t.Fatalf("shared file has warnings: %+v", w)
	}
	want := Partial{}
	for _, k := range Keys {
		vals := goodValues[k]
		want[k] = vals[(childTimes-1)%len(vals)]
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("after two processes the file holds\n%v\nwant\n%v", p, want)
	}
	if b := badCopies(t, f.pane); len(b) != 0 {
		t.Errorf("a process saw a broken file mid-write: %v", b)
	}
}

// Editing the YAML row on disk (write + rename into place) takes effect
// without a restart; so does a hand edit of settings.json; a broken YAML
// keeps the last good row and is reported.
func TestWatchPicksUpEdits(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.patch, rowYAML("scale: 1.1"))
	svc := f.service(t)
	ch, stop := svc.Subscribe()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Watch(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()

	// The watcher starts asynchronously: rewrite a first edit until it is
	// seen, which proves the watch is live. Every later edit is made once.
	deadline := time.Now().Add(10 * time.Second)
	for svc.View().Settings.Scale != 1.2 {
		if time.Now().After(deadline) {
			t.Fatal("the watcher never saw the first edit")
		}
		replaceFile(t, f.patch, rowYAML("scale: 1.2"))
		select {
		case <-ch:
		case <-time.After(200 * time.Millisecond):
		}
	}

	replaceFile(t, f.patch, rowYAML("scale: 1.3\nalerts: needs-you"))
	waitFor(t, "the renamed-in YAML to apply", 5*time.Second, func() bool {
		v := svc.View()
		return v.Settings.Scale == 1.3 && v.Settings.Alerts == "needs-you" && v.Source["alerts"] == SourceRow
	})

	replaceFile(t, f.patch, "- id: agents-notch\n  config: {scale: 1.9\n")
	waitFor(t, "the broken YAML to be reported", 5*time.Second, func() bool {
		return hasWarning(svc.View().Warnings, f.patch, "")
	})
	if v := svc.View(); v.Settings.Scale != 1.3 || v.Settings.Alerts != "needs-you" {
		t.Errorf("broken YAML lost the last good row: %+v", v.Settings)
	}

	replaceFile(t, f.pane, `{"holdMs": 3000}`)
	waitFor(t, "the hand-edited settings.json to apply", 5*time.Second, func() bool {
		v := svc.View()
		return v.Settings.HoldMs == 3000 && v.Source["holdMs"] == SourcePane
	})

	// An in-place write (no rename) is seen too.
	writeFile(t, f.patch, rowYAML("scale: 1.4"))
	waitFor(t, "the in-place YAML write to apply", 5*time.Second, func() bool {
		v := svc.View()
		return v.Settings.Scale == 1.4 && len(v.Warnings) == 0
	})
}

// A subscriber is woken by a Change, and Reload without any change on disk
// reports nothing new.
func TestSubscribeAndReload(t *testing.T) {
	f := newFixture(t)
	svc := f.service(t)
	ch, stop := svc.Subscribe()
	defer stop()
	if svc.Reload() {
		t.Error("Reload with nothing changed reported a change")
	}
	select {
	case <-ch:
		t.Fatal("woken without a change")
	default:
	}
	if _, err := svc.Change(Change{Set: Partial{"alerts": "off"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("a Change did not wake the subscriber")
	}
}

// A Change that cannot be written is an error and leaves the view alone.
func TestChangeWriteFailure(t *testing.T) {
	dir := t.TempDir()
	blocker := dir + "/not-a-dir"
	writeFile(t, blocker, "x")
	svc := NewService(Options{PanePath: blocker + "/settings.json"})
	if _, err := svc.Change(Change{Set: Partial{"alerts": "off"}}); err == nil {
		t.Fatal("write under a file succeeded")
	}
	if svc.View().Settings.Alerts != Defaults.Alerts {
		t.Error("a failed write changed the view")
	}
}

func ExampleParseRequest() {
	c, err := ParseRequest([]byte(`{"scale": 9, "maxRows": null}`))
	fmt.Println(c.Set["scale"], c.Clear, err)
	_, err = ParseRequest([]byte(`{"scale": 1, "zoom": 2}`))
	fmt.Println(err)
	// Output:
	// 2 [maxRows] <nil>
	// unknown setting(s): zoom
}
