package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/web/templates"
)

// manifestIcon is one icon of the web manifest.
type manifestIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose"`
}

// webManifest is what a browser needs to install the board as an app: a
// standalone window on the board, with the notch's icons and colours. Its
// service worker (sw.js) only shows pushes: the board is live or it shows
// the unknown state, so nothing is served offline.
type webManifest struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	ShortName       string         `json:"short_name"`
	Description     string         `json:"description"`
	StartURL        string         `json:"start_url"`
	Scope           string         `json:"scope"`
	Display         string         `json:"display"`
	BackgroundColor string         `json:"background_color"`
	ThemeColor      string         `json:"theme_color"`
	Icons           []manifestIcon `json:"icons"`
}

var manifest = webManifest{
	ID:              "/agents-notch/",
	Name:            "agents notch",
	ShortName:       "notch",
	Description:     "Which of your AI coding-agent sessions are working, need you, failed or are done.",
	StartURL:        "/agents-notch/",
	Scope:           "/agents-notch/",
	Display:         "standalone",
	BackgroundColor: templates.BackgroundColor,
	ThemeColor:      templates.ThemeColor,
	Icons: []manifestIcon{
		{Src: "/agents-notch/static/icon.svg", Sizes: "any", Type: "image/svg+xml", Purpose: "any"},
		{Src: "/agents-notch/static/icon-192.png", Sizes: "192x192", Type: "image/png", Purpose: "any"},
		{Src: "/agents-notch/static/icon-512.png", Sizes: "512x512", Type: "image/png", Purpose: "any"},
		{Src: "/agents-notch/static/icon-maskable-512.png", Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
	},
}

// manifestJSON is the manifest as served; it never changes while running.
var manifestJSON, _ = json.MarshalIndent(manifest, "", "  ")

// serveManifest is GET /agents-notch/manifest.webmanifest.
func (s *Server) serveManifest(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, "application/manifest+json", manifestJSON)
}
