package window

import (
	"encoding/json"
	"testing"
	"time"
)

func TestStatusJSON(t *testing.T) {
	at := time.UnixMilli(1790000000000)
	for _, tc := range []struct {
		st   Status
		want string
	}{
		{Status{State: Off}, `{"state":"off","pid":0,"since":null,"next":null,"crashed":false,"quickDeaths":0,"spawns":0}`},
		{Status{State: Running, PID: 42, Since: at, Spawns: 1},
			`{"state":"running","pid":42,"since":1790000000000,"next":null,"crashed":false,"quickDeaths":0,"spawns":1}`},
		{Status{State: Waiting, Since: at, Next: at.Add(15 * time.Second), LastExit: "exit code 3", Crashed: true, QuickDeaths: 1, Spawns: 1},
			`{"state":"waiting","pid":0,"since":1790000000000,"next":1790000015000,"lastExit":"exit code 3","crashed":true,"quickDeaths":1,"spawns":1}`},
	} {
		got, err := json.Marshal(tc.st)
		if err != nil || string(got) != tc.want {
			t.Errorf("json(%+v) = %s, %v\nwant %s", tc.st, got, err, tc.want)
		}
	}
}

func TestStatusLead(t *testing.T) {
	now := time.Date(2026, 10, 22, 10, 42, 30, 0, time.UTC)
	for _, tc := range []struct {
		st   Status
		want string
	}{
		{Status{State: Off}, "off"},
		{Status{State: Waiting}, "starting"},
		{Status{State: Running, Since: now.Add(-30 * time.Second)}, "running since"},
		{Status{State: Waiting, Crashed: true, Next: now.Add(11500 * time.Millisecond)}, "crashed; restarting"},
		{Status{State: Waiting, Next: now.Add(3 * time.Second)}, "exited; restarting"},
		{Status{State: Quit, Since: now, Next: now.Add(time.Hour)}, "quit from the tray; back at"},
		{Status{State: Waiting, LastExit: notStarted, Crashed: true, Next: now.Add(15 * time.Second)}, "did not start; retrying"},
	} {
		if got := tc.st.Lead(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.st, got, tc.want)
		}
	}
}
