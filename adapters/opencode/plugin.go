package opencode

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// pluginJS is the plugin's source with two placeholders, __EXE__ and
// __URL__, each replaced by a JavaScript string.
//
//go:embed plugin.js
var pluginJS string

// Marker is the plugin's first line: the file is notch-web's.
const Marker = `// notch-web: this OpenCode plugin is notch-web's ("notch-web hooks uninstall opencode" removes it; an install rewrites it).`

// PluginFile is the plugin's file name in OpenCode's plugin folder.
const PluginFile = "notch-web.js"

// Plugin is the plugin notch-web writes for notch-web's executable exe and
// the host's base URL url ("": the one "notch-web hook" finds itself:
// --url's default, $NOTCH_URL). Both go in as JSON strings, which are
// JavaScript string literals (U+2028 and U+2029 escaped too).
func Plugin(exe, url string) []byte {
	r := strings.NewReplacer("__EXE__", jsString(exe), "__URL__", jsString(url))
	return []byte(r.Replace(pluginJS))
}

func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
