// Package docs holds notch-web's documentation; its tests check that the
// documents name the code as it is.
package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// code is every top-level name and method of the repository's Go code
// (its tests' too: a walk may name the test that checks it).
type code struct {
	pkgs    map[string]map[string]bool // package name → its top-level names
	methods map[string]map[string]bool // receiver type → its methods
	names   map[string]bool            // every top-level name
}

func readCode(t *testing.T, root string) code {
	t.Helper()
	c := code{pkgs: map[string]map[string]bool{}, methods: map[string]map[string]bool{}, names: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := c.pkgs[f.Name.Name]
		if pkg == nil {
			pkg = map[string]bool{}
			c.pkgs[f.Name.Name] = pkg
		}
		add := func(name string) { pkg[name], c.names[name] = true, true }
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(d.Name.Name)
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if g, ok := typ.(*ast.IndexExpr); ok {
					typ = g.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					if c.methods[id.Name] == nil {
						c.methods[id.Name] = map[string]bool{}
					}
					c.methods[id.Name][d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						add(s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(n.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	spanRE  = regexp.MustCompile("`([^`]+)`")
	identRE = regexp.MustCompile(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$`)
)

// TestArchitectureWalksNameRealCode: every file, folder, function, method
// and type that architecture.md's walks name in backquotes exists.
func TestArchitectureWalksNameRealCode(t *testing.T) {
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start, end := strings.Index(doc, "## Walk 1"), strings.Index(doc, "## Routes")
	if start < 0 || end < start {
		t.Fatal("architecture.md has no walks before its Routes")
	}
	root := ".."
	c := readCode(t, root)
	checked := 0
	for _, m := range spanRE.FindAllStringSubmatch(doc[start:end], -1) {
		span := m[1]
		switch {
		case strings.ContainsAny(span, " :-"):
			continue // a route, a header, an event's name: not code
		case strings.Contains(span, "/") || strings.HasSuffix(span, ".go"):
			if _, err := os.Stat(filepath.Join(root, span)); err != nil {
				t.Errorf("the walks name %s, which is not in the tree", span)
			}
		case identRE.MatchString(span):
			a, b, two := strings.Cut(span, ".")
			ok := false
			if two {
				ok = c.methods[a][b] || c.pkgs[a][b]
			} else {
				_, isPkg := c.pkgs[a]
				_, isDir := os.Stat(filepath.Join(root, a))
				ok = c.names[a] || isPkg || isDir == nil
			}
			if !ok {
				t.Errorf("the walks name `%s`, which the code does not declare", span)
			}
		default:
			continue
		}
		checked++
	}
	if checked < 30 {
		t.Errorf("only %d names checked: did the walks lose their backquotes?", checked)
	}
}
