package security

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// KeepsSecureCookie reports whether the browser that sent r will keep a
// Secure cookie from the answer: a browser keeps one from an https page,
// or from a plain http page at a loopback name or address (localhost,
// 127.0.0.0/8, [::1] — "potentially trustworthy" origins), and drops it
// from any other plain http page. So: r came over this host's TLS; or a
// proxy says which scheme the browser used (X-Forwarded-Proto, else
// Forwarded's proto=); or r came from a proxy on this machine that says
// whom it forwards for but not the scheme (Tailscale Serve, which serves
// https only); or r came over plain http and its Host — the name the
// browser used — is a loopback one. A browser on this machine that used
// an --allow-host name or the machine's own name reaches the host from
// loopback too, yet keeps nothing over plain http.
func KeepsSecureCookie(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if proto := forwardedProto(r.Header); proto != "" {
		return strings.EqualFold(proto, "https")
	}
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !peer.Addr().Unmap().IsLoopback() {
		return false
	}
	for _, h := range forwardHeaders {
		if r.Header.Get(h) != "" {
			return true // a proxy on this machine, which did not say
		}
	}
	return loopbackName(r.Host)
}

// forwardedProto is the scheme a proxy says the browser used:
// X-Forwarded-Proto, else the proto= of Forwarded's first element (RFC
// 7239); "" when neither says.
func forwardedProto(h http.Header) string {
	if p := strings.TrimSpace(h.Get("X-Forwarded-Proto")); p != "" {
		first, _, _ := strings.Cut(p, ",")
		return strings.TrimSpace(first)
	}
	first, _, _ := strings.Cut(h.Get("Forwarded"), ",")
	for pair := range strings.SplitSeq(first, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(k, "proto") {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// loopbackName reports whether a Host (any port) is a loopback name or
// address: localhost or a name under .localhost, 127.0.0.0/8, [::1].
func loopbackName(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}
