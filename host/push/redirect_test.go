package push

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/pushtest"
)

// webPushTo is a Web Push channel with one subscription, at endpoint (http
// to loopback allowed, as for a stand-in), sending through client.
func webPushTo(t *testing.T, endpoint string, client *http.Client) *WebPush {
	t.Helper()
	w := NewWebPush(WebPushOptions{Dir: t.TempDir(), LoopbackHTTP: true, Client: client})
	b := pushtest.NewBrowser(t, "phone")
	s, err := ParseSubscription(b.SubscriptionJSON(endpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Subscribe(s, ""); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestNoChannelFollowsARedirect: an ntfy topic, a webhook or a Web Push
// endpoint that answers with a redirect (307 and 308 resend the body, with
// its token, its capabilities or the encrypted message) is an error, and
// nothing reaches where it points.
func TestNoChannelFollowsARedirect(t *testing.T) {
	elsewhere := &recorder{}
	other := httptest.NewServer(elsewhere)
	defer other.Close()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/stolen", status)
		}))
		ctx := context.Background()
		for _, tc := range []struct {
			name string
			do   func() error
		}{
			{"ntfy send", func() error {
				return NewNtfy(NtfyConfig{Name: "phone", URL: redirector.URL + "/topic", Token: "tk_secret"}, nil).Send(ctx, messages()[0])
			}},
			{"ntfy withdraw", func() error {
				return NewNtfy(NtfyConfig{Name: "phone", URL: redirector.URL + "/topic", Token: "tk_secret"}, nil).Withdraw(ctx, "s-1")
			}},
			{"ntfy with a client of its own", func() error {
				return NewNtfy(NtfyConfig{Name: "phone", URL: redirector.URL + "/topic", Token: "tk_secret"}, redirector.Client()).Send(ctx, messages()[0])
			}},
			{"json webhook send", func() error {
				return NewWebhook(WebhookConfig{Name: "mine", URL: redirector.URL + "/hook", Shape: ShapeJSON}, nil).Send(ctx, messages()[0])
			}},
			{"json webhook withdraw", func() error {
				return NewWebhook(WebhookConfig{Name: "mine", URL: redirector.URL + "/hook", Shape: ShapeJSON}, nil).Withdraw(ctx, "s-1")
			}},
			{"slack webhook", func() error {
				return NewWebhook(WebhookConfig{Name: "team", URL: redirector.URL + "/hook", Shape: ShapeSlack}, nil).Send(ctx, messages()[0])
			}},
			{"discord webhook", func() error {
				return NewWebhook(WebhookConfig{Name: "team", URL: redirector.URL + "/hook", Shape: ShapeDiscord}, redirector.Client()).Send(ctx, messages()[0])
			}},
			{"web push send", func() error { return webPushTo(t, redirector.URL+"/push/x", nil).Send(ctx, messages()[0]) }},
			{"web push withdraw", func() error { return webPushTo(t, redirector.URL+"/push/x", nil).Withdraw(ctx, "s-1") }},
			{"web push with a client of its own", func() error {
				return webPushTo(t, redirector.URL+"/push/x", redirector.Client()).Send(ctx, messages()[0])
			}},
		} {
			err := tc.do()
			if err == nil || !strings.Contains(err.Error(), http.StatusText(status)) {
				t.Errorf("%s answered %d: %v, want an error naming the redirect", tc.name, status, err)
			}
		}
		redirector.Close()
	}
	if got := elsewhere.all(); got != "" {
		t.Errorf("a redirect was followed:\n%s", got)
	}
}
