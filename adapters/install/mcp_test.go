package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mcpExe = "/opt/notch web/notch-web"

// notch-web's MCP server goes into each agent's file in that agent's shape,
// a second install changes nothing, and uninstall gives back the file's
// bytes (an empty file comes back as {}).
func TestMCPJSONRoundTrip(t *testing.T) {
	argv := []string{mcpExe, "mcp"}
	for _, tc := range []struct {
		name  string
		shape mcpShape
		in    string
		want  string // a fragment of the file after install
	}{
		{"claude, none before", mcpClaude, "{\n  \"numStartups\": 3\n}\n", `"notch-web": {
      "type": "stdio",
      "command": "/opt/notch web/notch-web",
      "args": [
        "mcp"
      ]
    }`},
		{"claude, another server kept", mcpClaude, "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"gh-mcp\", \"args\": []}\n  }\n}\n", `"github": {"command": "gh-mcp", "args": []},`},
		{"gemini, comments kept", mcpServers, "{\n  // mine\n  \"theme\": \"dark\"\n}\n", `// mine`},
		{"copilot, an empty file", mcpCopilot, "", `"tools": [`},
		{"opencode", mcpOpenCode, "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n", `"command": [
        "/opt/notch web/notch-web",
        "mcp"
      ],
      "enabled": true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := setMCP([]byte(tc.in), tc.shape, argv)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("after install:\n%s\nwant %s", out, tc.want)
			}
			if again, err := setMCP(out, tc.shape, argv); err != nil || string(again) != string(out) {
				t.Fatalf("a second install changed it (%v):\n%s", err, again)
			}
			// Another executable's path replaces ours in place.
			moved, err := setMCP(out, tc.shape, []string{"/usr/bin/notch-web", "mcp", "--url", "http://127.0.0.1:7341"})
			if err != nil || !strings.Contains(string(moved), "/usr/bin/notch-web") || strings.Contains(string(moved), mcpExe) {
				t.Fatalf("a moved executable (%v):\n%s", err, moved)
			}
			back, err := removeMCP(moved, tc.shape)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.in
			if want == "" {
				want = "{}\n"
			}
			if tc.name == "claude, none before" || tc.name == "opencode" || tc.name == "gemini, comments kept" || tc.name == "copilot, an empty file" {
				// The mcpServers object we added stays, empty.
				if !strings.Contains(string(back), `: {}`) {
					t.Errorf("after uninstall:\n%s", back)
				}
				return
			}
			if string(back) != want {
				t.Errorf("uninstall did not give the file back:\n%s\nwant\n%s", back, want)
			}
		})
	}
}

// A server named notch-web that is not notch-web mcp is someone else's:
// install refuses, uninstall leaves it; a file that does not parse is
// refused.
func TestMCPOthersLeftAlone(t *testing.T) {
	theirs := "{\"mcpServers\": {\"notch-web\": {\"command\": \"/usr/bin/python3\", \"args\": [\"notch.py\"]}}}\n"
	if _, err := setMCP([]byte(theirs), mcpServers, []string{mcpExe, "mcp"}); !errors.Is(err, ErrMCPTaken) {
		t.Errorf("install over someone else's server: %v", err)
	}
	if out, err := removeMCP([]byte(theirs), mcpServers); err != nil || string(out) != theirs {
		t.Errorf("uninstall touched someone else's server (%v):\n%s", err, out)
	}
	for _, bad := range []string{"{", "[]", `{"mcpServers": []}`} {
		if _, err := setMCP([]byte(bad), mcpServers, []string{mcpExe, "mcp"}); !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v, want ErrSyntax", bad, err)
		}
	}
}

func TestCodexMCPTable(t *testing.T) {
	argv := []string{mcpExe, "mcp"}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "[mcp_servers.notch-web]\ncommand = \"/opt/notch web/notch-web\"\nargs = [\"mcp\"]\n"},
		{"keys and tables kept", "model = \"o3\"\n\n[mcp_servers.github]\ncommand = \"gh\"\n",
			"model = \"o3\"\n\n[mcp_servers.github]\ncommand = \"gh\"\n\n[mcp_servers.notch-web]\ncommand = \"/opt/notch web/notch-web\"\nargs = [\"mcp\"]\n"},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n\n[mcp_servers.notch-web]\ncommand = \"/opt/notch web/notch-web\"\nargs = [\"mcp\"]\n"},
		{"CRLF", "model = \"o3\"\r\n", "model = \"o3\"\r\n\r\n[mcp_servers.notch-web]\r\ncommand = \"/opt/notch web/notch-web\"\r\nargs = [\"mcp\"]\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := setCodexMCP(tc.in, argv)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Fatalf("after install:\n%q\nwant\n%q", out, tc.want)
			}
			if again, err := setCodexMCP(out, argv); err != nil || again != out {
				t.Fatalf("a second install changed it (%v):\n%q", err, again)
			}
			if got, ok := readCodexMCP(out); !ok || strings.Join(got, " ") != strings.Join(argv, " ") {
				t.Errorf("read back %q %v", got, ok)
			}
			moved, err := setCodexMCP(out+"[other]\nx = 1\n", []string{"/usr/bin/notch-web", "mcp"})
			if err != nil || !strings.Contains(moved, "command = \"/usr/bin/notch-web\"\nargs = [\"mcp\"]\n") && !strings.Contains(moved, "\r\n") {
				t.Fatalf("moved (%v):\n%q", err, moved)
			}
			back, err := removeCodexMCP(out)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.in
			if tc.name == "no final newline" {
				want += "\n"
			}
			if back != want {
				t.Errorf("uninstall:\n%q\nwant\n%q", back, want)
			}
		})
	}
	for _, refused := range []string{
		"mcp_servers = { notch-web = { command = \"x\" } }\n",
		"[mcp_servers]\nnotch-web.command = \"x\"\n",
		"[mcp_servers.notch-web]\ncommand = \"notch-web\"\nargs = [\"mcp\"]\n[mcp_servers.notch-web.env]\nA = \"1\"\n",
		"[mcp_servers.notch-web]\ncommand = \"notch-web\"\nargs = [\n  \"mcp\",\n]\n",
		"[mcp_servers.notch-web]\ncommand = \"/usr/bin/other\"\nargs = [\"mcp\"]\n",
	} {
		before := refused
		if _, err := setCodexMCP(refused, argv); err == nil {
			t.Errorf("install into %q was taken", refused)
		}
		if out, err := removeCodexMCP(refused); err != nil || out != before {
			t.Errorf("uninstall changed %q: %q %v", refused, out, err)
		}
	}
}

// The files: Install with MCP writes the agent's own MCP file (with the
// environment's homes), Status says so, Uninstall takes it out; an agent
// notch-web knows no MCP file for is refused before anything is written.
func TestInstallMCPFiles(t *testing.T) {
	for _, tc := range []struct {
		agent, file string
		env         map[string]string
	}{
		{ClaudeCode, ".claude.json", nil},
		{"gemini", ".gemini/settings.json", nil},
		{"qwen", ".qwen/settings.json", nil},
		{"copilot", "cop/mcp-config.json", map[string]string{"COPILOT_HOME": "cop"}},
		{"codex", ".codex/config.toml", nil},
		{"opencode", ".config/opencode/opencode.json", nil},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			home := t.TempDir()
			o := Options{Agent: tc.agent, Home: home, Dir: home, URL: "http://127.0.0.1:7340", Exe: mcpExe, MCP: true,
				Getenv: func(k string) string {
					if v, ok := tc.env[k]; ok {
						return filepath.Join(home, v)
					}
					return ""
				}}
			if _, err := Install(o); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(home, tc.file)
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), "notch-web") || !strings.Contains(string(b), `"mcp"`) {
				t.Fatalf("%s (%v):\n%s", path, err, b)
			}
			st, err := Status(o)
			if err != nil || len(st) == 0 || !strings.Contains(strings.Join(st[0].Notes, "\n"), "notch-web mcp is configured in") {
				t.Errorf("status does not say it (%v): %+v", err, st)
			}
			if _, err := Uninstall(o); err != nil {
				t.Fatal(err)
			}
			b, _ = os.ReadFile(path)
			if strings.Contains(string(b), `"notch-web":`) || strings.Contains(string(b), "mcp_servers.notch-web") {
				t.Errorf("after uninstall:\n%s", b)
			}
		})
	}
}

func FuzzSetMCP(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x"}}}`), uint8(1))
	f.Add([]byte("{\n // c\n \"mcp\": {}\n}"), uint8(4))
	f.Add([]byte(`{"mcpServers": {"notch-web": {"command": "/bin/notch-web", "args": ["mcp"]}}}`), uint8(2))
	f.Add([]byte(""), uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, s uint8) {
		shape := mcpShape(s%4 + 1)
		out, err := setMCP(src, shape, []string{mcpExe, "mcp"})
		if err != nil {
			return
		}
		d, err := newDoc(out)
		if err != nil {
			t.Fatalf("install made a file that does not parse: %v\n%s", err, out)
		}
		key := "mcpServers"
		if shape == mcpOpenCode {
			key = "mcp"
		}
		if !isOurMCP(mcpArgvOf(shape, d.root.get(key).get(MCPName))) {
			t.Fatalf("install did not put the server:\n%s", out)
		}
		back, err := removeMCP(out, shape)
		if err != nil {
			t.Fatalf("uninstall of what install wrote: %v", err)
		}
		if _, err := newDoc(back); err != nil {
			t.Fatalf("uninstall made a file that does not parse: %v\n%s", err, back)
		}
	})
}

func FuzzSetCodexMCP(f *testing.F) {
	f.Add("model = \"o3\"\n")
	f.Add("[mcp_servers.notch-web]\ncommand = \"notch-web\"\nargs = [\"mcp\"]\n# end\n\n[x]\n")
	f.Add("a = '''\n[mcp_servers.notch-web]\n'''\n")
	f.Fuzz(func(t *testing.T, src string) {
		out, err := setCodexMCP(src, []string{mcpExe, "mcp"})
		if err != nil {
			return
		}
		if argv, ok := readCodexMCP(out); !ok || !isOurMCP(argv) {
			t.Fatalf("install did not put a readable table:\n%q", out)
		}
		if _, err := removeCodexMCP(out); err != nil {
			t.Fatalf("uninstall of what install wrote: %v", err)
		}
	})
}
