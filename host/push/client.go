package push

import "net/http"

// noRedirects is client (nil: a client with a sendTimeout timeout) that
// never follows a redirect: every channel posts to the address its file or
// its subscription names, and a 3xx is that service's answer, an error. A
// redirect followed would carry a topic's token, a webhook's capabilities
// or the message itself to wherever the answer points — past the file's
// "https, plain http only to this machine" rule (307 and 308 resend the
// body).
func noRedirects(client *http.Client) *http.Client {
	if client == nil {
		client = &http.Client{Timeout: sendTimeout}
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}
