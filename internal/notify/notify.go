// Package notify is a wake-up broadcast: every subscriber learns that
// something changed, and a burst of changes may arrive as one wake-up, since
// each reader goes and takes the latest state itself.
package notify

import "sync"

// Broadcast wakes its subscribers. The zero value is ready to use.
type Broadcast struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

// Subscribe returns a channel that receives a value after changes, and a
// function that stops the subscription.
func (b *Broadcast) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[chan struct{}]struct{}{}
	}
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}
}

// Notify wakes every subscriber without ever blocking: one pending wake-up
// per subscriber is enough.
func (b *Broadcast) Notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
