package security

import (
	"crypto/tls"
	"net/http"
	"testing"
)

func TestKeepsSecureCookie(t *testing.T) {
	for _, c := range []struct {
		name, peer, host string
		tls              bool
		hdr              map[string]string
		want             bool
	}{
		{"this host's TLS", "192.0.2.7:5000", "phone.example", true, nil, true},
		{"plain http from another machine", "192.0.2.7:5000", "phone.example:7340", false, nil, false},
		{"a proxy that took https", "192.0.2.7:5000", "phone.example", false, map[string]string{"X-Forwarded-Proto": "https"}, true},
		{"a proxy that took http", "127.0.0.1:5000", "phone.example", false, map[string]string{"X-Forwarded-Proto": "http"}, false},
		{"a chain of proxies: the first says", "127.0.0.1:5000", "phone.example", false, map[string]string{"X-Forwarded-Proto": "http, https"}, false},
		{"Forwarded https", "192.0.2.7:5000", "phone.example", false, map[string]string{"Forwarded": `For="[2001:db8::1]";Proto=https`}, true},
		{"Forwarded http", "127.0.0.1:5000", "phone.example", false, map[string]string{"Forwarded": `proto=http;host=phone.example, proto=https`}, false},
		{"a proxy on this machine that does not say (Tailscale Serve)", "127.0.0.1:5000", "phone.example", false, map[string]string{"Tailscale-User-Login": "me@example.com"}, true},
		{"a browser here at an --allow-host name", "127.0.0.1:5000", "phone.example:7340", false, nil, false},
		{"a browser here at localhost", "127.0.0.1:5000", "localhost:7340", false, nil, true},
		{"a browser here at a .localhost name", "[::1]:5000", "notch.localhost:7340", false, nil, true},
		{"a browser here at 127.0.0.2", "127.0.0.1:5000", "127.0.0.2:7340", false, nil, true},
		{"a browser here at [::1]", "[::1]:5000", "[::1]:7340", false, nil, true},
		{"a Host that says localhost from another machine", "192.0.2.7:5000", "localhost:7340", false, nil, false},
		{"localhost.example is not loopback", "127.0.0.1:5000", "localhost.example:7340", false, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "http://x/agents-notch/pair/CODE", nil)
			r.RemoteAddr, r.Host = c.peer, c.host
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range c.hdr {
				r.Header.Set(k, v)
			}
			if got := KeepsSecureCookie(r); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func FuzzForwardedProto(f *testing.F) {
	f.Add("https", "")                           // X-Forwarded-Proto alone
	f.Add("", `for=192.0.2.7;proto=http`)        // Forwarded alone
	f.Add(" HTTP , https", `proto="https", x=y`) // both, a chain, quoted
	f.Add("", `;;=;proto=;proto`)                // odd pairs
	f.Add("", "proto=\u202ehttps\x00")           // control and bidi characters
	f.Fuzz(func(t *testing.T, xfp, fwd string) {
		h := http.Header{}
		h.Set("X-Forwarded-Proto", xfp)
		h.Set("Forwarded", fwd)
		p := forwardedProto(h)
		if len(p) > len(xfp)+len(fwd) {
			t.Fatalf("%q from %q and %q", p, xfp, fwd)
		}
	})
}
