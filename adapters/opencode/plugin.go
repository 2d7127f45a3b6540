package opencode

import "github.com/notch-web/notch-web/adapters/internal/ocplugin"

// Marker is the plugin's first line: the file is notch-web's.
var Marker = ocplugin.Marker(Agent, "OpenCode")

// PluginFile is the plugin's file name in OpenCode's plugin folder.
const PluginFile = ocplugin.PluginFile

// Plugin is the plugin notch-web writes for notch-web's executable exe and
// the host's base URL url (ocplugin.Plugin).
func Plugin(exe, url string) []byte { return ocplugin.Plugin(Agent, "OpenCode", exe, url) }
