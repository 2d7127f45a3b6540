// Package settings owns the agents notch's fourteen settings: their
// defaults, how a raw value is parsed and clamped, and the three layers that
// decide the effective value (defaults ← the plugin row's YAML config ← the
// pane's override file).
//
// Nothing here knows HTTP. The same clamp serves the YAML row and the pane's
// file, so a slider and a hand-written line behave identically.
package settings

// Settings is the full set of effective settings, encoded with the field
// names of the frozen schema-4 contract.
type Settings struct {
	Scale          float64 `json:"scale"`
	Screen         string  `json:"screen"`
	Anchor         string  `json:"anchor"`
	MaxRows        int     `json:"maxRows"`
	HideFullscreen bool    `json:"hideFullscreen"`
	Opacity        float64 `json:"opacity"`
	Motion         string  `json:"motion"`
	ShowProject    bool    `json:"showProject"`
	ShowDone       bool    `json:"showDone"`
	HoverMode      string  `json:"hoverMode"`
	HoldMs         int     `json:"holdMs"`
	TopEdgeOpens   bool    `json:"topEdgeOpens"`
	GhostOpacity   float64 `json:"ghostOpacity"`
	Alerts         string  `json:"alerts"`
}

// Defaults is the bottom layer (the contract's DEFAULTS): what every key is
// when neither the row nor the pane says otherwise.
var Defaults = Settings{
	Scale:          1.0,
	Screen:         ScreenMain,
	Anchor:         AnchorCenter,
	MaxRows:        6,
	HideFullscreen: true,
	Opacity:        1.0,
	Motion:         MotionAuto,
	ShowProject:    true,
	ShowDone:       true,
	HoverMode:      HoverGhost,
	HoldMs:         1600,
	TopEdgeOpens:   true,
	GhostOpacity:   0.18,
	Alerts:         AlertsAll,
}
