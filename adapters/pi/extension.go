package pi

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// extensionTS is the extension's source with two placeholders, __EXE__ and
// __URL__, each replaced by a JavaScript string.
//
//go:embed extension.ts
var extensionTS string

// Marker is the extension's first line: the file is notch-web's.
const Marker = `// notch-web: this Pi extension is notch-web's ("notch-web hooks uninstall pi" removes it; an install rewrites it).`

// File is the extension's file name in Pi's extensions folder.
const File = "notch-web.ts"

// Extension is the extension notch-web writes for notch-web's executable
// exe and the host's base URL url ("": the one "notch-web hook" finds
// itself). Both go in as JSON strings, which are JavaScript string
// literals (U+2028 and U+2029 escaped too).
func Extension(exe, url string) []byte {
	r := strings.NewReplacer("__EXE__", jsString(exe), "__URL__", jsString(url))
	return []byte(r.Replace(extensionTS))
}

func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
