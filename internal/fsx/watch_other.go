//go:build !linux

package fsx

import (
	"context"
	"errors"
)

// inodeWatch says watchInodes runs here: not off Linux, where WatchWith
// watches the directories for Inodes too.
const inodeWatch = false

func watchInodes(context.Context, []string, func(), WatchOptions) error {
	return errors.ErrUnsupported
}
