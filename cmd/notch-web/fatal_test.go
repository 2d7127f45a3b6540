package main

import (
	"net"
	"testing"
)

// TestFatalExitCode: the real program stops with exit 1 on a start-up
// error, and its stderr — a pipe here, as under a supervisor — holds the
// one standard fatal record.
func TestFatalExitCode(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	code, stderr := exitCode(t, "--addr", busy.Addr().String())
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	checkFatalRecord(t, stderr, "StartupError", "the address is in use (another notch-web?); --addr 127.0.0.1:0 picks a free port")
}

func TestNextAddr(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:7340", "127.0.0.1:7341"},
		{":7340", "127.0.0.1:7341"},
		{"[::1]:8080", "[::1]:8081"},
		{"127.0.0.1:80", "127.0.0.1:7340"},
		{"127.0.0.1:65535", "127.0.0.1:7340"},
	} {
		if got := nextAddr(tc.addr); got != tc.want {
			t.Errorf("nextAddr(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}
