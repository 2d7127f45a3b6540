package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// The row as the harness reads it (the seed's "Patch grammar"): layers in
// order, each id-targeted row replacing config wholesale; a row inserted
// into a group row is found; a truthy name that does not match the row's
// skips that patch; the DSH home's cordis.patch.yml is beneath every
// --patch.
func TestRowLayersAsTheHarnessReadsThem(t *testing.T) {
	const (
		insertRoot   = "- insert:\n    id: agents-notch\n    name: dsh-agents-notch/host\n    config: {scale: 1.25, context: {budget: 200000}}\n"
		insertGroup  = "- id: desktop\n  insert:\n    - id: agents-notch\n      name: dsh-agents-notch/host\n      config: {scale: 1.5}\n"
		insertGroup1 = "- id: desktop\n  insert: {id: agents-notch, name: dsh-agents-notch/host, config: {scale: 1.75}}\n"
		patchScale   = "- id: agents-notch\n  config: {scale: 0.8}\n"
		patchNamed   = "- id: agents-notch\n  name: dsh-agents-notch/host\n  config: {scale: 0.9}\n"
		patchWrong   = "- id: agents-notch\n  name: someone-else\n  config: {scale: 2}\n"
		patchNoCfg   = "- id: agents-notch\n  disabled: false\n"
	)
	cases := []struct {
		name     string
		home     string // "" = no home file
		patches  []string
		scale    float64 // 0 = the default
		budget   int64   // 0 = null
		warnWord string  // a warning that must be there
	}{
		{"the home alone", insertRoot, nil, 1.25, 200000, ""},
		{"a --patch layers on the home's row: config replaced wholesale", insertRoot, []string{patchScale}, 0.8, 0, ""},
		{"a --patch without config keeps the home's", insertRoot, []string{patchNoCfg}, 1.25, 200000, ""},
		{"two --patch files, the later wins", insertRoot, []string{patchScale, patchNamed}, 0.9, 0, ""},
		{"a row inserted into a group row", insertGroup, nil, 1.5, 0, ""},
		{"a single row inserted into a group row", insertGroup1, nil, 1.75, 0, ""},
		{"a group insert overridden by a later layer", insertGroup, []string{patchScale}, 0.8, 0, ""},
		{"a matching name applies", insertRoot, []string{patchNamed}, 0.9, 0, ""},
		{"a name that does not match skips the patch", insertRoot, []string{patchWrong}, 1.25, 200000, "someone-else"},
		{"skipped, the layer before still wins", insertRoot, []string{patchScale, patchWrong}, 0.8, 0, "skipped"},
		{"a name skips within one file too", insertRoot + patchWrong, nil, 1.25, 200000, "skipped"},
		{"no home file: the --patch alone", "", []string{patchScale}, 0.8, 0, ""},
		{"a name with no inserted row to check it against applies", patchWrong, nil, 2, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "cordis.patch.yml")
			if tc.home != "" {
				writeFile(t, home, tc.home)
			}
			var paths []string
			for i, p := range tc.patches {
				paths = append(paths, filepath.Join(dir, "overlay"+string(rune('a'+i))+".yml"))
				writeFile(t, paths[i], p)
			}
			v := NewService(Options{HomePatch: home, PatchPaths: paths, ExplicitPatches: true, PanePath: filepath.Join(dir, "settings.json")}).View()
			want := tc.scale
			if want == 0 {
				want = Defaults.Scale
			}
			if v.Settings.Scale != want {
				t.Errorf("scale %v, want %v (warnings %+v)", v.Settings.Scale, want, v.Warnings)
			}
			var got int64
			if v.Context.Budget != nil {
				got = *v.Context.Budget
			}
			if got != tc.budget {
				t.Errorf("budget %d, want %d", got, tc.budget)
			}
			var all []string
			for _, w := range v.Warnings {
				all = append(all, w.Message)
			}
			if tc.warnWord != "" && !strings.Contains(strings.Join(all, "\n"), tc.warnWord) {
				t.Errorf("warnings %q, want one saying %q", all, tc.warnWord)
			}
			if tc.warnWord == "" && len(all) > 0 {
				t.Errorf("warnings %q, want none", all)
			}
		})
	}
}
