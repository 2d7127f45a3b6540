package fdlimit

import "testing"

func TestStreamCap(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		want  int
	}{
		{0, MaxStreams},
		{64, minStreams},
		{256, 128},
		{1024, 896},
		{4096, 3584},
		{1 << 20, MaxStreams},
	} {
		if got := StreamCap(tc.limit); got != tc.want {
			t.Errorf("StreamCap(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
	if Streams() < minStreams {
		t.Errorf("Streams() = %d", Streams())
	}
}
