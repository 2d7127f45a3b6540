package ascii

import (
	"regexp"
	"testing"
)

func TestSpan(t *testing.T) {
	digits := NewSet(Digits)
	word := NewSet(Alnum, "_-")
	for _, c := range []struct {
		set      *Set
		x        string
		min, max int
		want     bool
	}{
		{digits, "0", 1, 9, true},
		{digits, "123456789", 1, 9, true},
		{digits, "1234567890", 1, 9, false},
		{digits, "", 1, 9, false},
		{digits, "", 0, 9, true},
		{digits, "12a", 1, 9, false},
		{digits, "١٢", 1, 9, false}, // Arabic-Indic digits are not ASCII digits
		{digits, "1\x00", 1, 9, false},
		{word, "Ab_-9", 1, 8, true},
		{word, "Ab c", 1, 8, false},
		{word, "Ab\n", 1, 8, false},
		{word, "é", 1, 8, false},
		{word, "\xff", 1, 8, false},
	} {
		if got := c.set.Span(c.x, c.min, c.max); got != c.want {
			t.Errorf("Span(%q, %d, %d) = %v, want %v", c.x, c.min, c.max, got, c.want)
		}
	}
	if !word.Has('_') || word.Has(' ') {
		t.Errorf("Has: _ %v, space %v", word.Has('_'), word.Has(' '))
	}
}

func TestNewSetRefusesNonASCII(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSet(\"é\") did not panic")
		}
	}()
	NewSet("é")
}

// FuzzSpan holds Span to the regexp it stands for, on any input.
func FuzzSpan(f *testing.F) {
	for _, s := range []string{"", "0", "abc", "a-b_c", "%12", "a b", "\x00", "\xff\xfe", "é", "aaaaaaaaaaaaaaaaa"} {
		f.Add(s)
	}
	set := NewSet(Alnum, "._/@+=:-")
	re := regexp.MustCompile(`^[A-Za-z0-9._/@+=:-]{1,16}$`)
	f.Fuzz(func(t *testing.T, x string) {
		if got, want := set.Span(x, 1, 16), re.MatchString(x); got != want {
			t.Errorf("Span(%q) = %v, the regexp says %v", x, got, want)
		}
	})
}

func BenchmarkSpan(b *testing.B) {
	set := NewSet(Alnum, "._/@+=:-")
	re := regexp.MustCompile(`^/[A-Za-z0-9._/@+=:-]{1,199}$`)
	x := "/tmp/tmux-1000/default"
	b.Run("set", func(b *testing.B) {
		for b.Loop() {
			if !(x[0] == '/' && set.Span(x[1:], 1, 199)) {
				b.Fatal("no")
			}
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			if !re.MatchString(x) {
				b.Fatal("no")
			}
		}
	})
	b.Run("compile", func(b *testing.B) {
		for b.Loop() {
			regexp.MustCompile(`^/[A-Za-z0-9._/@+=:-]{1,199}$`)
		}
	})
	b.Run("newset", func(b *testing.B) {
		for b.Loop() {
			NewSet(Alnum, "._/@+=:-")
		}
	})
}
