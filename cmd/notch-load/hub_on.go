//go:build notch_hub

package main

// linksHub: this notch-load links the embedded hub (-tags notch_hub), which
// mesh's fan-in runs in its own process.
const linksHub = true
