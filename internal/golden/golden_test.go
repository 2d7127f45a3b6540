package golden

import "testing"

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb", "a\nb", ""},
		{"a\nb\nc", "a\nx\nc", "  a\n- b\n+ x\n  c\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8", "1\n2\n3\n4\n5\n6\n7\nX", "  6\n  7\n- 8\n+ X\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\ni", "A\nb\nc\nd\ne\nf\ng\nh\nI", "- a\n+ A\n  b\n  c\n…\n  g\n  h\n- i\n+ I\n"},
		{"", "new", "- \n+ new\n"},
	} {
		if got := Diff(tc.want, tc.got); got != tc.diff {
			t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tc.want, tc.got, got, tc.diff)
		}
	}
}
