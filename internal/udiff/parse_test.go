package udiff

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

// A patch as git 2.39 writes it: a change, a new file, a deleted file, a
// rename with a change, a binary file, a name git quotes, a removed line
// that reads like a header.
const gitPatch = `diff --git a/main.go b/main.go
index 3b18e51..a042389 100644
--- a/main.go
+++ b/main.go
@@ -1,4 +1,5 @@
 package main
 
-func main() {}
+func main() {
+	println("hi")
+}
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..ce01362
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
\ No newline at end of file
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index ce01362..0000000
--- a/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
--- not a header
-bye
diff --git a/old name.txt b/new name.txt
similarity index 80%
rename from old name.txt
rename to new name.txt
index 1111111..2222222 100644
--- a/old name.txt
+++ b/new name.txt
@@ -1 +1 @@
-one
+two
diff --git a/logo.png b/logo.png
index 1111111..2222222 100644
Binary files a/logo.png and b/logo.png differ
diff --git "a/tab\there\342\200\256.txt" "b/tab\there\342\200\256.txt"
index 1111111..2222222 100644
--- "a/tab\there\342\200\256.txt"
+++ "b/tab\there\342\200\256.txt"
@@ -3 +3 @@ func x() {
-x
+y
`

func TestParse(t *testing.T) {
	files := Parse(gitPatch, Limits{}, 0)
	type want struct {
		path, old, status string
		added, removed    int
		binary            bool
		lines             int
	}
	wants := []want{
		{"main.go", "", FileModified, 3, 1, false, 7},
		{"new.txt", "", FileAdded, 1, 0, false, 2},
		{"gone.txt", "", FileDeleted, 0, 2, false, 3},
		{"new name.txt", "old name.txt", FileRenamed, 1, 1, false, 3},
		{"logo.png", "", FileModified, 0, 0, true, 0},
		{`tab\there\u202e.txt`, "", FileModified, 1, 1, false, 3},
	}
	if len(files) != len(wants) {
		t.Fatalf("%d files, want %d: %+v", len(files), len(wants), files)
	}
	for i, w := range wants {
		f := files[i]
		if f.Path != w.path || f.OldPath != w.old || f.Status != w.status || f.Added != w.added || f.Removed != w.removed || f.Binary != w.binary || len(f.Lines) != w.lines {
			t.Errorf("file %d = %q %q %s +%d −%d binary %v, %d lines; want %+v", i, f.Path, f.OldPath, f.Status, f.Added, f.Removed, f.Binary, len(f.Lines), w)
		}
	}
	if got := files[2].Lines[1]; got != (Line{Removed, 1, 0, "-- not a header"}) {
		t.Errorf("a removed line that reads like a header: %+v", got)
	}
	if got := files[0].Lines[5]; got != (Line{Added, 0, 4, "\tprintln(\"hi\")"}) {
		t.Errorf("line numbers: %+v", got)
	}
	if got := files[5].Lines[0]; got != (Line{Hunk, 0, 0, "@@ -3 +3 @@"}) {
		t.Errorf("a hunk header keeps no function context: %+v", got)
	}
}

// TestParseBudget: past the budget, files are counted and not shown.
func TestParseBudget(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"a", "b", "c"} {
		b.WriteString("diff --git a/" + name + " b/" + name + "\n--- a/" + name + "\n+++ b/" + name + "\n@@ -0,0 +1,100 @@\n")
		for range 100 {
			b.WriteString("+" + strings.Repeat("z", 30) + "\n")
		}
	}
	files := Parse(b.String(), Limits{Lines: 60}, 3000)
	if len(files) != 3 {
		t.Fatalf("%d files", len(files))
	}
	if n := len(files[0].Lines); n != 60 || files[0].More != 41 {
		t.Errorf("first file: %d lines shown, %d more", n, files[0].More)
	}
	if n := len(files[2].Lines); n != 0 || files[2].More != 100 || files[2].Added != 100 {
		t.Errorf("past the budget: %d lines shown, %d more, +%d", n, files[2].More, files[2].Added)
	}
}

func TestParseCRLF(t *testing.T) {
	f := Parse("diff --git a/w b/w\n--- a/w\n+++ b/w\n@@ -1 +1 @@\n-a\r\n+b\r\n", Limits{}, 0)
	if len(f) != 1 || !f[0].CRLF || f[0].Lines[2].Text != "b" {
		t.Fatalf("%+v", f)
	}
}

// FuzzParse: any text parses to files whose shown text is within the
// limits and holds nothing hidden (git's output is a file's contents).
func FuzzParse(f *testing.F) {
	f.Add(gitPatch)                                                     // every kind of file
	f.Add("diff --git a/x b/x\n@@ -1,2 +1 @@\n-a\n")                    // a hunk cut short
	f.Add("diff --git a/x b/x\n@@ -99999999999999999999,1 +1 @@\n-a\n") // numbers out of range
	f.Add("diff --git \"a/\\x\" \"b/\\777\"\n")                         // quotes that do not unquote
	f.Add("@@ -1 +1 @@\n-a\n+b\n")                                      // a hunk before any file
	f.Fuzz(func(t *testing.T, patch string) {
		lim := Limits{Lines: 50, Bytes: 2000, LineBytes: 100}
		n := 0
		for _, file := range Parse(patch, lim, 5000) {
			for _, s := range []string{file.Path, file.OldPath} {
				if !utf8.ValidString(s) || textrule.Has(s) {
					t.Fatalf("path %q shown with a hidden character", s)
				}
			}
			if len(file.Lines) > lim.Lines {
				t.Fatalf("%d lines", len(file.Lines))
			}
			for _, l := range file.Lines {
				n += len(l.Text)
				if l.Op != Hunk && (!utf8.ValidString(l.Text) || textrule.Has(strings.ReplaceAll(l.Text, "\t", " "))) {
					t.Fatalf("line %q shown with a hidden character", l.Text)
				}
			}
		}
		if n > 5000 {
			t.Fatalf("%d bytes shown, budget 5000", n)
		}
	})
}

func TestParseCodex(t *testing.T) {
	files := ParseCodex("*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-print(\"Hi\")\n+print(\"Hello, world!\")\n*** Add File: hello.txt\n+Hello\n*** Delete File: old.txt\n*** End Patch\n", Limits{}, 0)
	if len(files) != 3 {
		t.Fatalf("%d files: %+v", len(files), files)
	}
	if f := files[0]; f.Path != "src/main.py" || f.OldPath != "src/app.py" || f.Status != FileRenamed || f.Added != 1 || f.Removed != 1 || len(f.Lines) != 3 || f.Lines[1].Old != 0 {
		t.Errorf("the update: %+v", f)
	}
	if f := files[1]; f.Path != "hello.txt" || f.Status != FileAdded || f.Added != 1 {
		t.Errorf("the new file: %+v", f)
	}
	if f := files[2]; f.Path != "old.txt" || f.Status != FileDeleted || len(f.Lines) != 0 {
		t.Errorf("the deleted file: %+v", f)
	}
}

// FuzzParseCodex: any text, within the limits, nothing hidden shown.
func FuzzParseCodex(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch") // an update
	f.Add("*** Add File: \u202e\x1b.txt\n+\xff\n")                          // hostile names and lines
	f.Add("+before any file\n")                                             // lines outside a file
	f.Fuzz(func(t *testing.T, patch string) {
		lim := Limits{Lines: 50, Bytes: 2000, LineBytes: 100}
		for _, file := range ParseCodex(patch, lim, 5000) {
			if textrule.Has(file.Path) || textrule.Has(file.OldPath) || len(file.Lines) > lim.Lines {
				t.Fatalf("%+v", file)
			}
			for _, l := range file.Lines {
				if !utf8.ValidString(l.Text) || textrule.Has(strings.ReplaceAll(l.Text, "\t", " ")) {
					t.Fatalf("line %q", l.Text)
				}
			}
		}
	})
}
