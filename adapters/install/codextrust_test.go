package install

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// codex169Hashes are the currentHash values Codex 0.169.0's own app-server
// ("hooks/list") reported for the hooks `notch-web hooks install codex
// --exe /usr/local/bin/notch-web` writes: the ground truth codexHookHash
// must match, hook by hook.
var codex169Hashes = map[string]string{
	"PreToolUse":        "sha256:ac669e02e6908789e7358f6d29a28a4a9ecd461f8beef29fd9aaf42193585a3a",
	"PermissionRequest": "sha256:063e16904c7056146355404c1fe671db7fdfef4eef8c6b771f783e964d89a8ec",
	"PostToolUse":       "sha256:6f66ea8b31ffb14f0e0160cbd5275f51880e638b1a60d9d885249b7eaf196f99",
	"SessionStart":      "sha256:bb85f650289f1559d82283bc9e5522c750bd200376d783301e75f4fa544601b4",
	"SessionEnd":        "sha256:2b848bf0f3bb7e592cb04ce8bdc27841d02e6b05a300beb9a23c7842b01a3d77",
	"UserPromptSubmit":  "sha256:2fed812965e3e54a4a3b764e03bee8d6092c81782125b5a698f6607006ba4d0e",
	"Stop":              "sha256:e8985da975cae94aad3a67727f816ea1a9986d13a9298d976f71bba9d3430009",
	"Interrupt":         "sha256:9ed79684d8291343fe3aaf20076ea65ba1447006f83098daa1620dd983cfad5b",
	// Read from the config.toml Codex 0.169.0's TUI wrote on "Trust all
	// and continue" (it counted 10 hooks to review).
	"SubagentStart": "sha256:bd1aaa6dfdf5314401ba9504bfd9fa7630008fc330caaf4a8ce04ecc0e5f18f8",
	"SubagentStop":  "sha256:f5a2795297f91cd8146a2e7b4e60bd73ca1eae6506c15f1cb1d9ee725e42341f",
}

func TestCodexHookHashIsCodexs(t *testing.T) {
	f := codexFormat("/usr/local/bin/notch-web hook codex")
	for _, e := range f.events {
		h, _ := f.want(e).(map[string]any)
		got, ok := codexHookHash(e, "", h)
		if !ok || got != codex169Hashes[e] {
			t.Errorf("%s: %s, want Codex 0.169's %s", e, got, codex169Hashes[e])
		}
	}
	// SessionEnd's timeout is clamped to 3 before hashing: 5 hashes as 3.
	five := map[string]any{"type": "command", "command": "/usr/local/bin/notch-web hook codex", "timeout": float64(5)}
	if got, _ := codexHookHash("SessionEnd", "", five); got != codex169Hashes["SessionEnd"] {
		t.Errorf("SessionEnd with timeout 5: %s, want the clamped hash", got)
	}
	if _, ok := codexHookHash("Stop", "", map[string]any{"type": "http", "url": "x"}); ok {
		t.Error("an http hook hashed")
	}
}

func TestReadCodexHookStates(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      map[string]codexHookState
		ok        bool
	}{
		{"none", "model = \"gpt-5\"\n", map[string]codexHookState{}, true},
		{"as the TUI writes it", "model = \"x\"\n\n[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\"\n\n[hooks.state.\"/h/.codex/hooks.json:interrupt:1:0\"]\ntrusted_hash = \"sha256:cd\"  # ok\nenabled = false\n",
			map[string]codexHookState{"/h/.codex/hooks.json:stop:0:0": {trustedHash: "sha256:ab"}, "/h/.codex/hooks.json:interrupt:1:0": {trustedHash: "sha256:cd", disabled: true}}, true},
		{"a literal key, escapes", "[hooks.state.'C:\\h\\hooks.json:stop:0:0']\ntrusted_hash = 'sha256:ef'\n[hooks.state.\"/a\\\"b:stop:0:0\"]\ntrusted_hash = \"sha256:\\u0067\"\n",
			map[string]codexHookState{`C:\h\hooks.json:stop:0:0`: {trustedHash: "sha256:ef"}, `/a"b:stop:0:0`: {trustedHash: "sha256:g"}}, true},
		{"other tables are not hook state", "[projects.\"/x\"]\ntrusted_hash = \"nope\"\n[hooks]\nSessionStart = []\n", map[string]codexHookState{}, true},
		{"an inline table: not followed", "[hooks.state]\n\"/h:stop:0:0\" = { trusted_hash = \"sha256:ab\" }\n", nil, false},
		{"dotted keys: not followed", "[hooks]\nstate.\"/h:stop:0:0\".trusted_hash = \"sha256:ab\"\n", nil, false},
		{"a top-level dotted key: not followed", "hooks.state.\"/h:stop:0:0\".trusted_hash = \"x\"\n", nil, false},
		{"a hash that is not a string", "[hooks.state.\"/h:stop:0:0\"]\ntrusted_hash = 12\n", nil, false},
		{"not TOML we can read", "a = \"unterminated\n", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := readCodexHookStates(tc.src)
			if ok != tc.ok || len(got) != len(tc.want) {
				t.Fatalf("got %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}

func FuzzReadCodexHookStates(f *testing.F) {
	f.Add("[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\"\nenabled = false\n")
	f.Add("[hooks.state.'x']\ntrusted_hash = 'y'\n[hooks]\nstate = {}\n")
	f.Add("a = [\n\"]\",\n]\n[hooks.state.\"\\u00\"]\n")
	f.Fuzz(func(t *testing.T, src string) {
		states, ok := readCodexHookStates(src)
		if !ok && states != nil {
			t.Fatal("a refusal returned states")
		}
	})
}

// TestCodexTrustStatus: status reads config.toml beside hooks.json and says
// whether Codex trusts notch-web's hooks, as Codex 0.169 itself decides it
// (the same states its hooks/list reported for the same files): trusted,
// not yet, changed since (another --url), turned off, or unknown.
func TestCodexTrustStatus(t *testing.T) {
	o := opts(t, Codex)
	o.URL, o.Exe = "", "/usr/local/bin/notch-web"
	dir := filepath.Join(o.Home, ".codex")
	hooksJSON, config := filepath.Join(dir, "hooks.json"), filepath.Join(dir, "config.toml")
	write(t, config, "model = \"gpt-5\"\n")
	mustInstall(t, o)
	trust := func() []string {
		t.Helper()
		st, err := Status(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range st[0].Notes {
			if strings.HasPrefix(n, "Codex trust: ") {
				return []string{n}
			}
		}
		return nil
	}
	if n := trust(); len(n) != 1 || !strings.HasPrefix(n[0], "Codex trust: 0 of 10 of notch-web's hooks trusted; not trusted yet: SessionStart,") ||
		!strings.Contains(n[0], "codex exec") {
		t.Fatalf("untrusted: %q", n)
	}
	// Trust them as Codex's TUI does (the hashes its hooks/list reported).
	src := read(t, config)
	for _, e := range codexFormat("").events {
		src += "\n[hooks.state." + tomlString(codexTrustKey(hooksJSON, e, 0, 0)) + "]\ntrusted_hash = \"" + codex169Hashes[e] + "\"\n"
	}
	write(t, config, src)
	if n := trust(); !slices.Equal(n, []string{"Codex trust: all 10 of notch-web's hooks are trusted"}) {
		t.Fatalf("trusted: %q", n)
	}
	// One turned off in Codex.
	write(t, config, strings.Replace(src, "hooks.json:stop:0:0\"]\n", "hooks.json:stop:0:0\"]\nenabled = false\n", 1))
	if n := trust(); len(n) != 1 || !strings.Contains(n[0], "9 of 10") || !strings.Contains(n[0], "turned off in Codex: Stop") {
		t.Fatalf("one off: %q", n)
	}
	write(t, config, src)
	// Installed again with another URL: another command, another hash.
	o.URL = "http://127.0.0.1:7399"
	mustInstall(t, o)
	if n := trust(); len(n) != 1 || !strings.Contains(n[0], "0 of 10") || !strings.Contains(n[0], "changed since trusted: SessionStart,") {
		t.Fatalf("after a reinstall with another --url: %q", n)
	}
	// Hook state in a form notch-web does not read: unknown, never a guess.
	write(t, config, read(t, config)+"\n[hooks.state]\n\"x\" = { trusted_hash = \"y\" }\n")
	if n := trust(); len(n) != 1 || !strings.HasPrefix(n[0], "Codex trust: unknown") {
		t.Fatalf("unknown: %q", n)
	}
}
