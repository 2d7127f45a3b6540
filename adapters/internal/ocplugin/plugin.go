package ocplugin

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// pluginJS is the plugin's source with placeholders: __EXE__, __URL__ and
// __AGENT__, each replaced by a JavaScript string, and __NAME__ and
// __DISPLAY__ in its first lines' comments, replaced as they are.
//
//go:embed plugin.js
var pluginJS string

// Marker is the first line of the plugin of the agent named name (display
// for people): the file is notch-web's. OpenCode's reads as it always has,
// so a plugin an older notch-web wrote is still known as notch-web's.
func Marker(name, display string) string {
	return `// notch-web: this ` + display + ` plugin is notch-web's ("notch-web hooks uninstall ` + name + `" removes it; an install rewrites it).`
}

// PluginFile is the plugin's file name in the agent's plugin folder.
const PluginFile = "notch-web.js"

// Plugin is the plugin for the agent named name, for notch-web's
// executable exe and the host's base URL url ("": the one "notch-web hook"
// finds itself: --url's default, $NOTCH_URL). The three go in as JSON
// strings, which are JavaScript string literals (U+2028 and U+2029 escaped
// too); name and display are notch-web's own words.
func Plugin(name, display, exe, url string) []byte {
	r := strings.NewReplacer("__EXE__", jsString(exe), "__URL__", jsString(url), "__AGENT__", jsString(name),
		"__NAME__", name, "__DISPLAY__", display)
	return []byte(r.Replace(pluginJS))
}

func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
