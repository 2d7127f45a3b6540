package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/internal/fsx"
)

// BenchmarkChange is one pane click: a Service.Change of one key, with the
// durable (fsync'd, lock-protected) write of settings.json.
func BenchmarkChange(b *testing.B) {
	n := benchHoldMs(b, func(svc *Service, c Change) error {
		_, err := svc.Change(c)
		return err
	})
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkApply is BenchmarkChange's write alone: Store.Apply takes the
// file lock, reads and merges the layer and writes it durably, without the
// view rebuilt, the log line or the subscribers told.
func BenchmarkApply(b *testing.B) {
	benchHoldMs(b, func(svc *Service, c Change) error {
		_, err := svc.store.Apply(c)
		return err
	})
}

// benchHoldMs times do with a new holdMs each loop, on a service over a
// row, and returns how many it did.
func benchHoldMs(b *testing.B, do func(*Service, Change) error) int {
	f := newFixture(b)
	writeFile(b, f.patch, rowYAML("scale: 1.5\nalerts: off"))
	svc := f.service(b)
	vals := goodValues["holdMs"]
	n := 0
	for b.Loop() {
		if err := do(svc, Change{Set: Partial{"holdMs": vals[n%len(vals)]}}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return n
}

// BenchmarkDurableWrite is the floor under BenchmarkApply: the bare
// fsx.WriteFileAtomic (temporary file, fsync, rename, folder fsync) of
// settings.json's bytes, beside it. Apply ÷ DurableWrite is what the
// store's lock, read and merge cost.
func BenchmarkDurableWrite(b *testing.B) {
	f := newFixture(b)
	writeFile(b, f.patch, rowYAML("scale: 1.5\nalerts: off"))
	svc := f.service(b)
	if _, err := svc.Change(Change{Set: Partial{"holdMs": goodValues["holdMs"][0]}}); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(svc.store.Path())
	if err != nil {
		b.Fatal(err)
	}
	probe := filepath.Join(filepath.Dir(svc.store.Path()), "probe.json")
	for b.Loop() {
		if err := fsx.WriteFileAtomic(probe, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRequest parses a typical POST body.
func BenchmarkParseRequest(b *testing.B) {
	body := []byte(`{"scale": 1.25, "screen": 2, "maxRows": "7", "alerts": null}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
