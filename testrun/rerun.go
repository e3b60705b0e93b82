package testrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/mod/modfile"
)

// RerunOption configures RerunCommand.
type RerunOption interface {
	applyRerun(rerunConfig) rerunConfig
}

type rerunConfig struct {
	dir string
}

type rerunOptionFunc func(rerunConfig) rerunConfig

func (f rerunOptionFunc) applyRerun(c rerunConfig) rerunConfig { return f(c) }

// WithRepository names the folder the check ran in. A Go package is then
// named by its path relative to it (./pkg) when it lies there, and a pytest
// test by its file, which must exist there. Without it, Go packages are
// named by their import path and pytest tests get no command.
func WithRepository(dir string) RerunOption {
	return rerunOptionFunc(func(c rerunConfig) rerunConfig {
		c.dir = dir
		return c
	})
}

// runnerFamily is the runner whose command line reruns one test.
type runnerFamily string

const (
	familyGo     runnerFamily = "go"
	familyPytest runnerFamily = "pytest"
	familyJest   runnerFamily = "jest"
)

// dialectFamily maps the report dialects whose test ids say how to rerun a
// test to their runner; "" for the others.
func dialectFamily(dialect string) runnerFamily {
	switch dialect {
	case "gotestsum", "go-junit-report", "gotest-json":
		return familyGo
	case "pytest-xunit1", "pytest-xunit2":
		return familyPytest
	case "jest-junit":
		return familyJest
	}
	return ""
}

// coverageDialect is a report that says nothing about tests.
func coverageDialect(dialect string) bool { return dialect == "cobertura" || dialect == "lcov" }

// runnerOf is the one runner of r's test reports, "" when r has none or
// more than one kind, or a report whose runner is not known to take a
// single test (a run's cases do not say which report they came from).
func runnerOf(r *Run) runnerFamily {
	var fam runnerFamily
	for _, rep := range r.Reports {
		if rep.Skipped || coverageDialect(rep.Dialect) {
			continue
		}
		f := dialectFamily(rep.Dialect)
		if f == "" || (fam != "" && f != fam) {
			return ""
		}
		fam = f
	}
	return fam
}

// RerunCommand returns the command line (argv) that runs test id of run
// once more, or nil when none can be given without guessing:
//
//   - Go (gotestsum, go-junit-report, go test -json; id "import/path::TestX"
//     or "::TestX/sub"): go test -count=1 -run '^TestX$/^sub$' PKG, where PKG
//     is ./rel/path when the package lies under the repository's module
//     (WithRepository), else the import path.
//   - pytest (id "pkg.module.Class::name"): pytest 'pkg/module.py::Class::name',
//     only when the file exists in the repository (WithRepository); pytest's
//     classname does not say where the module ends and the classes begin, so
//     the longest prefix that names an existing file is taken.
//   - jest-junit with its default templates (classname and name the same
//     full name): npx jest -t '^full name$'.
//
// Every report of the run must come from that runner (coverage reports
// aside): a run's cases do not say which report they came from. Words are
// argv, not shell text: ShellQuote makes them a line to paste.
func RerunCommand(run *Run, id string, opts ...RerunOption) []string {
	var cfg rerunConfig
	for _, o := range opts {
		cfg = o.applyRerun(cfg)
	}
	if run == nil || id == "" {
		return nil
	}
	switch runnerOf(run) {
	case familyGo:
		return goRerun(id, cfg.dir)
	case familyPytest:
		return pytestRerun(id, cfg.dir)
	case familyJest:
		return jestRerun(id)
	}
	return nil
}

func goRerun(id, dir string) []string {
	pkg, name, ok := strings.Cut(id, "::")
	if !ok || pkg == "" || name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return nil
	}
	levels := strings.Split(name, "/")
	for i, l := range levels {
		if l == "" {
			return nil
		}
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return []string{"go", "test", "-count=1", "-run", strings.Join(levels, "/"), goPackage(pkg, dir)}
}

// goPackage is ./rel for an import path under the module that holds dir
// (found in dir or a parent) when that folder exists, else the import path.
func goPackage(pkg, dir string) string {
	if dir == "" {
		return pkg
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return pkg
	}
	for root := abs; ; {
		if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
			mod := modfile.ModulePath(data)
			rest, ok := strings.CutPrefix(pkg, mod)
			if mod == "" || !ok || (rest != "" && rest[0] != '/') {
				return pkg
			}
			pkgDir := filepath.Join(root, filepath.FromSlash(rest))
			if fi, err := os.Stat(pkgDir); err != nil || !fi.IsDir() {
				return pkg
			}
			rel, err := filepath.Rel(abs, pkgDir)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return pkg
			}
			if rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(root)
		if parent == root {
			return pkg
		}
		root = parent
	}
}

// pyIdent reports whether s is a Python identifier (letters, digits and
// _, not starting with a digit).
func pyIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

func pytestRerun(id, dir string) []string {
	if dir == "" {
		return nil
	}
	class, name, ok := strings.Cut(id, "::")
	if !ok || class == "" || name == "" {
		return nil
	}
	parts := strings.Split(class, ".")
	for _, p := range parts {
		if !pyIdent(p) {
			return nil
		}
	}
	for k := len(parts); k > 0; k-- {
		file := strings.Join(parts[:k], "/") + ".py"
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		node := append([]string{file}, parts[k:]...)
		return []string{"pytest", strings.Join(append(node, name), "::")}
	}
	return nil
}

func jestRerun(id string) []string {
	// jest-junit's default templates write "{classname} {title}" as both
	// classname and name; with any other template the id does not hold the
	// full name jest matches -t against.
	if len(id) < 3 || (len(id)-2)%2 != 0 {
		return nil
	}
	n := (len(id) - 2) / 2
	if id[n:n+2] != "::" || id[:n] != id[n+2:] {
		return nil
	}
	full := strings.TrimSpace(id[:n])
	if full == "" {
		return nil
	}
	return []string{"npx", "jest", "-t", "^" + regexp.QuoteMeta(full) + "$"}
}

// ShellQuote joins argv into one line for a POSIX shell: a word of only
// letters, digits and -_./:=@%+, is kept as it is, any other is put in
// single quotes (a quote inside closes them, is escaped with a backslash
// and opens them again), so pasting the line runs argv exactly.
// The line can still hold any character of the words: escape it for the
// terminal before printing it there.
func ShellQuote(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

func shellWord(w string) string {
	if w == "" {
		return "''"
	}
	plain := true
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@%+,", c)) {
			plain = false
			break
		}
	}
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
