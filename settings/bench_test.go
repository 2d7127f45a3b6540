package settings

import "testing"

// BenchmarkChange is one pane click: a Service.Change of one key, with the
// durable (fsync'd, lock-protected) write of settings.json.
func BenchmarkChange(b *testing.B) {
	f := newFixture(b)
	writeFile(b, f.patch, rowYAML("scale: 1.5\nalerts: off"))
	svc := f.service(b)
	vals := goodValues["holdMs"]
	n := 0
	for b.Loop() {
		if _, err := svc.Change(Change{Set: Partial{"holdMs": vals[n%len(vals)]}}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "ops/s")
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
