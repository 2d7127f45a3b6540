package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"
)

// The committed Datastar client is exactly the pinned 1.0.0 bundle, and its
// licence travels with it.
func TestDatastarIsThePinnedBundle(t *testing.T) {
	data, err := fs.ReadFile(FS, "vendor/datastar.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != DatastarSHA256 {
		t.Fatalf("vendor/datastar.js sha256 %s, want %s (make update-datastar fetches the pinned one)", got, DatastarSHA256)
	}
	lic, err := fs.ReadFile(FS, "vendor/datastar.LICENSE.md")
	if err != nil || !strings.Contains(string(lic), "Permission is hereby granted") {
		t.Fatalf("the MIT licence must sit beside the bundle: %v", err)
	}
}
