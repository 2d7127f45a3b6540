package templates

import (
	"strconv"

	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/host/store"
)

// maxBranch is the branch input's maxlength: host/launch's bound.
func maxBranch() string { return strconv.Itoa(launch.MaxBranch) }

// launchMachine is the machine a history row's session ran on, as a start
// names it: "" for this one.
func launchMachine(m string) string {
	if m == store.Local {
		return ""
	}
	return m
}
