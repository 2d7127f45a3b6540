package opencode

import (
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

// FuzzMap: a plugin's POST body is outside input (anything on the machine
// can POST to the endpoint). Map never panics, every event it emits
// validates, and its batch always applies.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each event, as the plugin sends it.
		`{"hook_event_name":"session.created","session_id":"s","parent_id":"","cwd":"/src/a","properties":{"title":"New session - 2026-12-03T16:46:38.163Z"}}`,
		`{"hook_event_name":"session.created","session_id":"c","parent_id":"s","cwd":"/src/a","properties":{"title":"Colour sentence (@general subagent)"}}`,
		`{"hook_event_name":"session.updated","session_id":"s","parent_id":"","cwd":"/src/a","properties":{"title":"Fix the build"}}`,
		`{"hook_event_name":"session.status","session_id":"s","parent_id":"","cwd":"/src/a","properties":{"status":{"type":"busy"}}}`,
		`{"hook_event_name":"session.status","session_id":"s","properties":{"status":{"type":"retry","message":"overloaded"}}}`,
		`{"hook_event_name":"session.status","session_id":"s","properties":{"status":{"type":"idle"}}}`,
		`{"hook_event_name":"session.idle","session_id":"s","properties":{}}`,
		`{"hook_event_name":"session.error","session_id":"s","properties":{"error":{"name":"APIError","message":"bad request"}}}`,
		`{"hook_event_name":"session.error","session_id":"s","properties":{"error":{"name":"MessageAbortedError"}}}`,
		`{"hook_event_name":"message.updated","session_id":"s","properties":{"info":{"role":"assistant","tokens":{"input":2000,"output":12,"cache":{"read":100,"write":5}}}}}`,
		`{"hook_event_name":"message.updated","session_id":"s","properties":{"info":{"tokens":{"input":9007199254740993,"cache":{"read":-1}}}}}`,
		`{"hook_event_name":"message.part.updated","session_id":"s","properties":{"part":{"type":"tool","tool":"bash","callID":"c1","state":{"status":"running"}}}}`,
		`{"hook_event_name":"message.part.updated","session_id":"s","properties":{"part":{"type":"tool","tool":"bash","state":{"status":"error","error":"boom"}}}}`,
		`{"hook_event_name":"permission.asked","session_id":"s","properties":{"id":"p","permission":"bash","patterns":["rm -rf /"],"metadata":{"command":"rm -rf /"}}}`,
		`{"hook_event_name":"permission.asked","session_id":"s","properties":{"permission":"","patterns":[1,2]}}`,
		`{"hook_event_name":"permission.replied","session_id":"s","properties":{"requestID":"p","reply":"reject"}}`,
		`{"hook_event_name":"notch-web.dispose","session_id":"s","properties":{}}`,
		// Odd and refused.
		`{"hook_event_name":"session.created","session_id":"s","parent_id":"s","properties":"x"}`,
		"{\"hook_event_name\":\"session.updated\",\"session_id\":\"s\\u202e\",\"properties\":{\"title\":\"\\u2028<b>x</b>\"}}",
		`{"hook_event_name":"session.idle","session_id":"s","session_id":"t"}`,
		`{"hook_event_name":"session.idle"}`,
		`[]`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}
