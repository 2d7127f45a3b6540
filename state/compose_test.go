package state

import (
	"fmt"
	"testing"
)

func TestComposeCountsAgainAndCuts(t *testing.T) {
	local := Document{Sessions: []Session{{ID: "a", Status: StatusDone}}, Summary: Summary{Status: StatusDone, Done: 1, Total: 1}}
	tests := []struct {
		name     string
		extra    []Session
		showDone bool
		want     Summary
		ids      []string
	}{
		{"nothing extra: unchanged", nil, true, Summary{Status: StatusDone, Done: 1, Total: 1}, []string{"a"}},
		{"a remote working row", []Session{{ID: "m/b", Status: StatusWorking}}, true,
			Summary{Status: StatusWorking, Working: 1, Done: 1, Total: 2}, []string{"a", "m/b"}},
		{"remote done rows follow showDone", []Session{{ID: "m/b", Status: StatusDone}, {ID: "m/c", Status: StatusAttention}}, false,
			Summary{Status: StatusAttention, Attention: 1, Done: 1, Total: 2}, []string{"a", "m/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compose(local, tt.extra, tt.showDone)
			if got.Summary != tt.want {
				t.Errorf("summary %+v, want %+v", got.Summary, tt.want)
			}
			var ids []string
			for _, s := range got.Sessions {
				ids = append(ids, s.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.ids) {
				t.Errorf("rows %v, want %v", ids, tt.ids)
			}
		})
	}
}

func TestComposeKeepsTheMostRelevantForty(t *testing.T) {
	var extra []Session
	for i := range 45 {
		st := StatusDone
		if i%9 == 0 {
			st = StatusAttention
		}
		extra = append(extra, Session{ID: fmt.Sprint(i), Status: st, Since: int64(i)})
	}
	got := Compose(Document{}, extra, true)
	if len(got.Sessions) != MaxSessions || got.Summary.Total != MaxSessions {
		t.Fatalf("%d rows, total %d; want %d", len(got.Sessions), got.Summary.Total, MaxSessions)
	}
	if got.Summary.Attention != 5 {
		t.Errorf("%d attention rows kept, want all 5", got.Summary.Attention)
	}
	// The oldest done rows go: 1..4 (0 is attention).
	for _, s := range got.Sessions {
		if s.ID == "1" || s.ID == "4" {
			t.Errorf("row %s kept; the oldest done rows should go first", s.ID)
		}
	}
}
