package mesh

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func sampleCode() Code {
	return Code{
		Addr:        "hub.example:7422",
		Fingerprint: strings.Repeat("ab", 32),
		ID:          "AAAAAAAAAAA",
		Secret:      "0123456789abcdef0123456789abcdef",
		Expires:     time.Unix(2_000_000_000, 0),
	}
}

func TestCodeRoundTrip(t *testing.T) {
	c := sampleCode()
	got, err := ParseCode("  " + c.String() + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if got != c {
		t.Fatalf("round trip: %+v, want %+v", got, c)
	}
}

func TestParseCodeRefuses(t *testing.T) {
	c := sampleCode()
	mod := func(f func(*Code)) string { x := c; f(&x); return x.String() }
	tests := []struct{ name, in, want string }{
		{"empty", "", "should start with"},
		{"another prefix", "notch2_abc", "should start with"},
		{"cut", c.String()[:40], "cut or changed"},
		{"not base64", codePrefix + "!!!", "cut or changed"},
		{"too long", codePrefix + strings.Repeat("A", 2000), "longer than any"},
		{"no port", mod(func(x *Code) { x.Addr = "hub" }), "HOST:PORT"},
		{"port 0", mod(func(x *Code) { x.Addr = "hub:0" }), "HOST:PORT"},
		{"short fingerprint", mod(func(x *Code) { x.Fingerprint = "abcd" }), "SHA-256"},
		{"upper-case fingerprint", mod(func(x *Code) { x.Fingerprint = strings.Repeat("AB", 32) }), "SHA-256"},
		{"short secret", mod(func(x *Code) { x.Secret = "abc" }), "malformed"},
		{"secret with a dot", mod(func(x *Code) { x.Secret = "0123456789abcdef.0123" }), "malformed"},
		{"no expiry", mod(func(x *Code) { x.Expires = time.Unix(0, 0) }), "no expiry"},
		{"extra field", codePrefix + "eyJhIjoiaDo3NDIyIiwieCI6MX0", "cut or changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCode(tt.in)
			if !errors.Is(err, ErrCode) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseCode: %v; want ErrCode saying %q", err, tt.want)
			}
		})
	}
}

func FuzzParseCode(f *testing.F) {
	f.Add(sampleCode().String())                      // a good code
	f.Add(codePrefix)                                 // the prefix alone
	f.Add(codePrefix + "e30")                         // {}
	f.Add(codePrefix + "eyJhIjoiaDo3NDIyIiwieCI6MX0") // an unknown field
	f.Add("notch1_" + strings.Repeat("_", 100))       // base64url noise
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCode(s)
		if err != nil {
			return
		}
		// A code that parses must survive its own round trip and be valid.
		again, err := ParseCode(c.String())
		if err != nil || again != c {
			t.Fatalf("re-parse of %q: %+v, %v", c.String(), again, err)
		}
	})
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "build-box", "x1", strings.Repeat("a", MaxName)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", "a-", "A", "a.b", "a b", "a*", ">", strings.Repeat("a", MaxName+1), "é"} {
		if err := CheckName(bad); !errors.Is(err, ErrName) {
			t.Errorf("CheckName(%q) = %v, want ErrName", bad, err)
		}
	}
	for in, want := range map[string]string{"Build-Box.local": "build-box", "my_pc": "my-pc", "..": "machine", "-x-": "x"} {
		if got := NameFrom(in); got != want || CheckName(got) != nil {
			t.Errorf("NameFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzNameFrom(f *testing.F) {
	f.Add("laptop.local") // a host name
	f.Add("")             // none
	f.Add("Ünïcode host") // letters outside a-z
	f.Fuzz(func(t *testing.T, s string) {
		if err := CheckName(NameFrom(s)); err != nil {
			t.Fatalf("NameFrom(%q) = %q: %v", s, NameFrom(s), err)
		}
	})
}
