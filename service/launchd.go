package service

import (
	"encoding/xml"
	"strings"
)

// PlistPath is the LaunchAgent's path: ~/Library/LaunchAgents/<Label>.plist.
func PlistPath(home string) string {
	return home + "/Library/LaunchAgents/" + Label + ".plist"
}

// Plist is the launchd LaunchAgent: started at login (RunAtLoad), started
// again when it exits in failure (KeepAlive SuccessfulExit false: not
// after a clean stop), its stdout and stderr appended to LogPath.
func Plist(s Spec) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	b.WriteString("<!-- notch-web-sha256: {{sha256}} -->\n")
	b.WriteString("<!-- Written by notch-web service install; notch-web service uninstall removes it. Edited, it is not replaced without force. -->\n")
	b.WriteString("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	b.WriteString("\t<key>Label</key>\n\t<string>" + Label + "</string>\n")
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range append([]string{s.Exe}, s.Args...) {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString("\t</array>\n")
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t<string>Interactive</string>\n")
	b.WriteString("\t<key>StandardOutPath</key>\n\t<string>" + xmlText(LogPath(s.DSHHome)) + "</string>\n")
	b.WriteString("\t<key>StandardErrorPath</key>\n\t<string>" + xmlText(LogPath(s.DSHHome)) + "</string>\n")
	b.WriteString("</dict>\n</plist>\n")
	return sealed(b.String())
}

// xmlText escapes s as XML character data.
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
