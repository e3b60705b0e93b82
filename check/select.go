package check

import (
	"slices"
	"strings"

	"github.com/hangar-dev/testresults/testrun"
)

// SelectTests returns one command line that runs the tests ids of run (a
// run of the check) again, in dir, the folder the check ran in, and writes
// a report Run reads; nil when the runner does not allow it for every id
// (testrun.RerunCommand gives none) or ids is empty. Run the whole check
// then.
//
//   - pytest: pytest with each test's node id (file::Class::name).
//   - go test: go test -json -count=1 -run '^(TestA|TestB)$' with each
//     package; a subtest is selected by its top-level test (all its
//     subtests run), and a name selected in one package also runs in the
//     others given, so more than ids may run: the caller reads only ids.
//   - jest (jest-junit's default templates): npx jest -t '^(a|b)$'.
//
// The runs of the tests are read as any run of the check (Run's report
// discovery), so their ids are the ones the check's own run gave.
func SelectTests(run *testrun.Run, ids []string, dir string) []string {
	if len(ids) == 0 {
		return nil
	}
	var cmds [][]string
	for _, id := range ids {
		c := testrun.RerunCommand(run, id, testrun.WithRepository(dir))
		if c == nil {
			return nil
		}
		cmds = append(cmds, c)
	}
	switch cmds[0][0] {
	case "pytest":
		return selectPytest(cmds)
	case "go":
		return selectGo(cmds)
	case "npx":
		return selectJest(cmds)
	}
	return nil
}

func selectPytest(cmds [][]string) []string {
	argv := []string{"pytest"}
	for _, c := range cmds {
		if len(c) != 2 || c[0] != "pytest" {
			return nil
		}
		if !slices.Contains(argv[1:], c[1]) {
			argv = append(argv, c[1])
		}
	}
	return argv
}

// selectGo merges go test -count=1 -run PATTERN PKG lines: the top-level
// names of their patterns in one alternation, their packages in order.
func selectGo(cmds [][]string) []string {
	var names, pkgs []string
	for _, c := range cmds {
		if len(c) != 6 || c[0] != "go" || c[3] != "-run" {
			return nil
		}
		top, _, _ := strings.Cut(c[4], "/")
		name := strings.TrimSuffix(strings.TrimPrefix(top, "^"), "$")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		if !slices.Contains(pkgs, c[5]) {
			pkgs = append(pkgs, c[5])
		}
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	if len(cmds) == 1 {
		pattern = cmds[0][4]
	}
	return append([]string{"go", "test", "-json", "-count=1", "-run", pattern}, pkgs...)
}

// selectJest merges npx jest -t '^NAME$' lines into one alternation.
func selectJest(cmds [][]string) []string {
	var names []string
	for _, c := range cmds {
		if len(c) != 4 || c[1] != "jest" || c[2] != "-t" {
			return nil
		}
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(c[3], "^"), "$"))
	}
	if len(names) == 1 {
		return cmds[0]
	}
	return []string{"npx", "jest", "-t", "^(?:" + strings.Join(names, "|") + ")$"}
}
