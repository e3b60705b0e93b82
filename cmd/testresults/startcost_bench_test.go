package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// startCostGroups are the dependencies BenchmarkStartCost weighs alone:
// each is linked into a program that does nothing else, which then pays
// for its package initialisation and for the pages of its code and data
// that start-up touches. "all" is every package this module's packages
// that testresults links import from outside the module, standard library
// included, worked out when the benchmark runs.
var startCostGroups = []struct {
	name    string
	imports []string
}{
	{"empty", nil},
	{"net-http", []string{"net/http"}},
	{"grpc", []string{"google.golang.org/grpc"}},
	{"otlp-grpc-exporter", []string{
		"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc",
		"go.opentelemetry.io/otel/sdk/trace",
	}},
	{"collector-pdata", []string{"go.opentelemetry.io/collector/pdata/ptrace"}},
	{"postgres-pgx", []string{"github.com/jackc/pgx/v5/stdlib"}},
	{"sqlite", []string{"modernc.org/sqlite"}},
	{"mcp-sdk", []string{"github.com/modelcontextprotocol/go-sdk/mcp"}},
	{"all", nil},
}

// BenchmarkStartCost measures what linking a dependency costs every
// command before it does any work: for each group above, a program that
// imports it and returns at once is started in turns with `true`, and the
// median wall-clock time it adds is reported (ms-added), beside
// `testresults --version` with and without internal/prefault (the
// programs here do not prefault). The difference between "all" and
// `testresults --version` is this module's own start-up; the rest is what
// the dependencies cost, which no change to the command can take back.
//
//	go test -run '^$' -bench StartCost -benchtime 100x ./cmd/testresults
func BenchmarkStartCost(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true command")
	}
	bin := builtBinary(b)
	dir := b.TempDir()
	type program struct {
		name string
		argv []string
		env  []string
	}
	var programs []program
	for _, g := range startCostGroups {
		imports := g.imports
		if g.name == "all" {
			imports = linkedImports(b)
		}
		programs = append(programs, program{name: g.name, argv: []string{buildImporter(b, dir, g.name, imports)}})
	}
	programs = append(programs,
		program{name: "testresults-version", argv: []string{bin, "--version"}},
		program{name: "testresults-version-without-prefault", argv: []string{bin, "--version"}, env: []string{"TESTRESULTS_PREFAULT=0"}},
	)
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			env := append(os.Environ(), p.env...)
			timed := func(argv []string) time.Duration {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				cmd.Env = env
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("%v: %v", argv, err)
				}
				return time.Since(start)
			}
			var bare, started []time.Duration
			for b.Loop() {
				bare = append(bare, timed([]string{truePath}))
				started = append(started, timed(p.argv))
			}
			b.ReportMetric(millis(median(started)-median(bare)), "ms-added")
		})
	}
}

// linkedImports returns the packages from outside this module that the
// module's packages linked into testresults import.
func linkedImports(b *testing.B) []string {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").Output()
	if err != nil {
		b.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	var imports []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 || !inModule(f[0]) {
			continue
		}
		for _, p := range f[1:] {
			if !inModule(p) && p != "C" && !seen[p] {
				seen[p] = true
				imports = append(imports, p)
			}
		}
	}
	slices.Sort(imports)
	if len(imports) < 20 {
		b.Fatalf("go list found only %d imports from outside the module: %v", len(imports), imports)
	}
	return imports
}

func inModule(pkg string) bool {
	return pkg == ownModule || strings.HasPrefix(pkg, ownModule+"/")
}

// buildImporter builds a program that imports imports and does nothing,
// with this module's requirements (the go command is run in the module),
// and returns its path.
func buildImporter(b *testing.B, dir, name string, imports []string) string {
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, p := range imports {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	file := filepath.Join(dir, name+".go")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	exe := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", exe, file)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building the %s program: %v\n%s", name, err, out)
	}
	return exe
}
