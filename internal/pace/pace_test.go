package pace

import (
	"context"
	"testing"
	"time"
)

func TestWaitIsImmediateUntilAMark(t *testing.T) {
	p := Pace{Gap: time.Hour}
	if !p.Wait(context.Background()) {
		t.Fatal("the first Wait, with no Mark, did not go at once")
	}
	p.Mark(time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if p.Wait(ctx) {
		t.Fatal("Wait an hour's gap after a Mark returned true; want it held until ctx ended")
	}
}

func TestWaitAfterTheGap(t *testing.T) {
	p := Pace{Gap: time.Hour}
	p.Mark(time.Now().Add(-2 * time.Hour))
	if !p.Wait(context.Background()) {
		t.Fatal("a Mark older than the gap held the caller")
	}
	var zero Pace
	zero.Mark(time.Now())
	if !zero.Wait(context.Background()) {
		t.Fatal("a zero Pace waited")
	}
}

func TestWaitReportsAnEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var p Pace
	if p.Wait(ctx) {
		t.Fatal("Wait on an ended context reported true")
	}
}
