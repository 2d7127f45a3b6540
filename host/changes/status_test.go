package changes

import (
	"bytes"
	"slices"
	"testing"
)

func TestParseStatus(t *testing.T) {
	oid := "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name      string
		in        string
		head      string
		untracked []string
	}{
		{"empty", "", "", nil},
		{"a commit, nothing else", "# branch.oid " + oid + "\x00# branch.head main\x00", oid, nil},
		{"no commit yet", "# branch.oid (initial)\x00# branch.head main\x00? new.txt\x00", "", []string{"new.txt"}},
		{"a tracked change is passed over",
			"# branch.oid " + oid + "\x001 .M N... 100644 100644 100644 " + oid + " " + oid + " a.go\x00? b.go\x00",
			oid, []string{"b.go"}},
		{"a rename's original path is not a record",
			"2 R. N... 100644 100644 100644 " + oid + " " + oid + " R100 new.go\x00? old.go\x00? c.go\x00",
			"", []string{"c.go"}},
		{"paths with spaces, newlines and markup are kept whole",
			"? a b\nc<b>.txt\x00? dir/ü.txt\x00", "", []string{"a b\nc<b>.txt", "dir/ü.txt"}},
		{"a bare '?' names nothing", "?\x00? \x00", "", nil},
		{"no final NUL", "? last", "", []string{"last"}},
		{"unmerged", "u UU N... 100644 100644 100644 100644 " + oid + " " + oid + " " + oid + " m.go\x00", "", nil},
	}
	for _, tt := range tests {
		st := parseStatus([]byte(tt.in))
		if st.head != tt.head || !slices.Equal(st.untracked, tt.untracked) {
			t.Errorf("%s: head %q untracked %q; want %q %q", tt.name, st.head, st.untracked, tt.head, tt.untracked)
		}
	}
}

// FuzzParseStatus: any output reads without a panic, and every path it
// names came whole from one record of it.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("# branch.oid (initial)\x00? a\x00"))
	f.Add([]byte("2 R. x\x00orig\x00? b\x00"))
	f.Add([]byte("? \x00\x00?"))
	f.Fuzz(func(t *testing.T, out []byte) {
		st := parseStatus(out)
		recs := bytes.Split(out, []byte{0})
		for _, p := range st.untracked {
			if p == "" || !slices.ContainsFunc(recs, func(r []byte) bool { return string(r) == "? "+p }) {
				t.Fatalf("%q is not a record of %q", p, out)
			}
		}
	})
}
