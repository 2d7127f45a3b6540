//go:build !notch_hub

package main

// linksHub: a plain notch-load leaves the hub out, as a plain notch-web
// does, so its floor-server is spared nats-server's process sampler (an
// idle floor must do nothing the contract does not ask).
const linksHub = false
