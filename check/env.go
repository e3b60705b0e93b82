package check

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Variables set for the check.
const (
	// EnvTestsDir names the run's report folder, for the check's own use.
	EnvTestsDir = "HANGAR_TESTS_DIR"
	// EnvReports chooses the mode: "collect" reads reports without setting
	// any runner variable, "off" neither sets variables nor reads reports.
	EnvReports = "HANGAR_TEST_REPORTS"

	envPytestAddopts  = "PYTEST_ADDOPTS"
	envGotestsumJUnit = "GOTESTSUM_JUNITFILE"
	envJestDir        = "JEST_JUNIT_OUTPUT_DIR"
	envJestFile       = "JEST_JUNIT_OUTPUT_FILE"
	envJestName       = "JEST_JUNIT_OUTPUT_NAME"
	// envJestSuiteErrors makes jest-junit write a test file that failed to
	// load (a syntax error, a missing module) as a failing test case; by
	// default it leaves that file out, and its tests with it.
	envJestSuiteErrors = "JEST_JUNIT_REPORT_TEST_SUITE_ERRORS"
)

// Report file names in the report folder.
const (
	PytestReport    = "pytest.xml"
	GotestsumReport = "gotestsum.xml"
	// GoTestReport holds the standard output of a check that is go test
	// -json: the go test -json stream, read as a report.
	GoTestReport = "go-test.json"
	// OutputFile holds the redacted tail of the check's output.
	OutputFile = "output.log"
	// ResultsFile is the run (and its comparison) that WriteResults writes.
	ResultsFile = "TEST-RESULTS.json"
	// RunFile is the run alone, written beside a TEST-RESULTS.json that
	// holds a comparison.
	RunFile = "run.json"
)

// environ is an environment as a list of NAME=value entries; the last
// entry of a name wins, as for exec.
type environ []string

func (e environ) get(name string) string {
	v, _ := e.lookup(name)
	return v
}

// lookup returns the value of name and whether e sets it at all.
func (e environ) lookup(name string) (string, bool) {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

func (e environ) set(name, value string) environ {
	out := make(environ, 0, len(e)+1)
	for _, kv := range e {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// setup is the environment prepared for a check.
type setup struct {
	env environ
	// vars are the variables set, NAME=value, in order.
	vars []string
	// notes say why a runner variable was not set.
	notes []string
	// explicit are report files named by the environment, the command line
	// or the repository's configuration.
	explicit []string
	// reasons make the run incomplete: a configuration that could not be
	// read may name a report that is then missed.
	reasons []string
}

func (s *setup) setVar(name, value string) {
	s.env = s.env.set(name, value)
	s.vars = append(s.vars, name+"="+value)
}

// prepare sets the runner variables (mode set), or only finds the report
// paths already named (mode collect); mode off sets nothing but
// HANGAR_TESTS_DIR.
func prepare(env environ, argv []string, wd, repo, reportDir string, mode Mode, cacheClear bool) *setup {
	s := &setup{env: env}
	s.setVar(EnvTestsDir, reportDir)
	if mode == ModeOff {
		if cacheClear {
			s.setVar(envPytestAddopts, strings.TrimSpace(env.get(envPytestAddopts)+" --cache-clear"))
		}
		return s
	}
	expand := func(p string) string {
		p = os.Expand(p, s.env.get)
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(s.env.get("HOME"), p[1:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		return filepath.Clean(p)
	}

	// pytest: the last --junitxml wins, and the command line comes after
	// PYTEST_ADDOPTS, which comes after the configuration's addopts. Adding
	// ours when any of them names a file would replace the repository's
	// own, so then its file is read instead.
	addopts := env.get(envPytestAddopts)
	envArgs, err := splitArgs(addopts)
	if err != nil {
		envArgs = strings.Fields(addopts)
	}
	cfg, err := findPytestConfig(wd, repo)
	if err != nil {
		s.reasons = append(s.reasons, err.Error())
		cfg = &pytestConfig{}
	}
	named := ""
	cmdPath, cmdNamed := commandJUnit(argv)
	envPath, envNamed := junitArg(envArgs)
	cfgPath, cfgNamed := junitArg(cfg.Args)
	switch {
	case cmdNamed:
		named = "the command line names junitxml"
		if cmdPath != "" {
			s.explicit = append(s.explicit, expand(cmdPath))
		}
	case envNamed:
		named = envPytestAddopts + " already names a JUnit file"
		if envPath != "" {
			s.explicit = append(s.explicit, expand(envPath))
		}
	case cfgNamed:
		named = cfg.File + " names a JUnit file in addopts"
		if cfgPath != "" {
			s.explicit = append(s.explicit, expand(cfgPath))
		}
	}
	newAddopts := addopts
	switch {
	case named != "":
		s.notes = append(s.notes, envPytestAddopts+": --junitxml not added: "+named)
	case mode == ModeSet:
		newAddopts = strings.TrimSpace(addopts + " " + quoteArgs([]string{"--junitxml=" + filepath.Join(reportDir, PytestReport)}))
	}
	if cacheClear {
		newAddopts = strings.TrimSpace(newAddopts + " --cache-clear")
	}
	if newAddopts != addopts {
		s.setVar(envPytestAddopts, newAddopts)
	}

	// gotestsum.
	if p := env.get(envGotestsumJUnit); p != "" {
		s.explicit = append(s.explicit, expand(p))
		s.notes = append(s.notes, envGotestsumJUnit+": already set")
	} else if mode == ModeSet {
		s.setVar(envGotestsumJUnit, filepath.Join(reportDir, GotestsumReport))
	}

	// jest-junit, only where the repository uses it.
	jest := true
	switch {
	case env.get(envJestFile) != "":
		s.explicit = append(s.explicit, expand(env.get(envJestFile)))
	case env.get(envJestDir) != "":
		name := env.get(envJestName)
		if name == "" {
			name = "junit.xml"
		}
		s.explicit = append(s.explicit, expand(filepath.Join(env.get(envJestDir), name)))
		s.notes = append(s.notes, envJestDir+": already set")
	case mode == ModeSet && usesJestJUnit(wd, repo):
		s.setVar(envJestDir, reportDir)
	default:
		jest = false
	}
	if jest && mode == ModeSet && env.get(envJestSuiteErrors) == "" {
		s.setVar(envJestSuiteErrors, "true")
	}
	return s
}

// usesJestJUnit reports whether the package.json or a jest configuration
// file in wd or the repository names the jest-junit reporter.
func usesJestJUnit(wd, repo string) bool {
	dirs := []string{wd}
	if repo != wd {
		dirs = append(dirs, repo)
	}
	for _, d := range dirs {
		for _, name := range []string{"package.json", "jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json"} {
			b, err := readConfig(filepath.Join(d, name))
			if err == nil && strings.Contains(string(b), "jest-junit") {
				return true
			}
		}
	}
	return false
}

// ReasonGoTestNoReport is the incomplete reason of a run of go test without
// -json that found no report.
const ReasonGoTestNoReport = ReasonNoReport + ": go test writes none; use go test -json (read from its output) or gotestsum (" + envGotestsumJUnit + ")"

// goTest tells whether argv runs go test (the command's base name is go,
// its first argument test) and, if so, whether its standard output is the
// go test -json stream: -json (or --json, -json=true) on the command line
// before -args, or in GOFLAGS, the command line winning.
func goTest(argv []string, env environ) (isGoTest, json bool) {
	if len(argv) < 2 || argv[1] != "test" {
		return false, false
	}
	name := filepath.Base(argv[0])
	if name != "go" && !strings.EqualFold(name, "go.exe") {
		return false, false
	}
	for _, f := range strings.Fields(env.get("GOFLAGS")) {
		if v, ok := jsonFlag(f); ok {
			json = v
		}
	}
	for _, a := range argv[2:] {
		if a == "-args" || a == "--args" {
			break
		}
		if v, ok := jsonFlag(a); ok {
			json = v
		}
	}
	return true, json
}

// jsonFlag reads one argument as go's flag package would a -json flag: ok
// when it is one, and its value.
func jsonFlag(arg string) (value, ok bool) {
	name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	if !strings.HasPrefix(arg, "-") || name != "json" {
		return false, false
	}
	if !hasVal {
		return true, true
	}
	v, err := strconv.ParseBool(val)
	if err != nil {
		return false, false
	}
	return v, true
}
