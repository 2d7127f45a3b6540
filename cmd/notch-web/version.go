package main

import (
	"runtime/debug"
	"strings"
)

// version names this build: the module version for `go install …@vX`, else
// the commit it was built from (with "-dirty" for uncommitted changes), else
// "devel". /healthz and --version say the same.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + dirty
}

// versionLine is --version's answer.
func versionLine() string {
	return "notch-web " + version() + " (" + strings.TrimPrefix(goVersion(), "go") + ")"
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return "go" + strings.TrimPrefix(bi.GoVersion, "go")
	}
	return "go"
}
