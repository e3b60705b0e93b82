package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxConfigBytes bounds every configuration file this package reads
// (pytest.ini, pyproject.toml, setup.cfg, tox.ini, package.json, jest
// configs, .hangar/environment.yaml): a larger one is not read.
const maxConfigBytes = 1 << 20

// maxConfigLevels bounds how many folders are searched upwards for pytest's
// configuration.
const maxConfigLevels = 32

var errConfigTooLarge = fmt.Errorf("check: configuration file larger than %d KiB", maxConfigBytes>>10)

// readConfig reads a small configuration file without following a symbolic
// link as its last component. A missing file is (nil, nil).
func readConfig(path string) ([]byte, error) {
	f, err := openNoFollow(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("check: %s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigBytes {
		return nil, errConfigTooLarge
	}
	return b, nil
}

// pytestConfig is the pytest configuration file that applies to a check and
// what its options say about a JUnit report.
type pytestConfig struct {
	// File is the configuration file pytest would use ("" when none).
	File string
	// Args are its addopts, split into arguments.
	Args []string
	// JUnitOptions names the junit_* options it sets (they shape the report
	// but name no file).
	JUnitOptions []string
}

// findPytestConfig finds the configuration file pytest would read when run
// in wd, the way pytest does for a run without -c or --rootdir: in wd and
// then in each folder above it, up to root (the repository) or
// maxConfigLevels folders, the first of pytest.ini, .pytest.ini,
// pyproject.toml with a [tool.pytest.ini_options] table, tox.ini with a
// [pytest] section and setup.cfg with a [tool:pytest] section.
func findPytestConfig(wd, root string) (*pytestConfig, error) {
	dir := wd
	for range maxConfigLevels {
		for _, c := range []struct {
			name, section string
			toml          bool
		}{
			{"pytest.ini", "pytest", false},
			{".pytest.ini", "pytest", false},
			{"pyproject.toml", "tool.pytest.ini_options", true},
			{"tox.ini", "pytest", false},
			{"setup.cfg", "tool:pytest", false},
		} {
			path := filepath.Join(dir, c.name)
			b, err := readConfig(path)
			if err != nil {
				return nil, fmt.Errorf("check: %s: %w", path, err)
			}
			if b == nil {
				continue
			}
			var opts map[string][]string
			var found bool
			if c.toml {
				opts, found, err = tomlTable(b, c.section)
			} else {
				opts, found = iniSection(b, c.section)
			}
			if err != nil {
				return nil, fmt.Errorf("check: %s: %w", path, err)
			}
			// pytest.ini is pytest's even without a [pytest] section.
			if !found && !strings.HasSuffix(c.name, "pytest.ini") {
				continue
			}
			cfg := &pytestConfig{File: path, Args: opts["addopts"]}
			for k := range opts {
				if strings.HasPrefix(k, "junit_") {
					cfg.JUnitOptions = append(cfg.JUnitOptions, k)
				}
			}
			return cfg, nil
		}
		if dir == root {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return &pytestConfig{}, nil
}

// iniSection returns the options of one section of an INI file as pytest
// reads pytest.ini, tox.ini and setup.cfg: "[section]" headers, "key = value"
// or "key: value" lines, continuation lines that start with white space, and
// whole-line comments starting with # or ;. Keys are lower-cased. addopts
// is split into arguments; other values are one element. found reports
// whether the section exists.
func iniSection(b []byte, section string) (opts map[string][]string, found bool) {
	raw := map[string]string{}
	in := false
	key := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), maxConfigBytes)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';':
			continue
		case line[0] == '[':
			end := strings.IndexByte(line, ']')
			in = end > 0 && strings.TrimSpace(line[1:end]) == section
			found = found || in
			key = ""
			continue
		case !in:
			continue
		case (line[0] == ' ' || line[0] == '\t') && key != "":
			raw[key] += "\n" + trimmed
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			key = ""
			continue
		}
		key = strings.ToLower(strings.TrimSpace(line[:i]))
		raw[key] = strings.TrimSpace(line[i+1:])
	}
	opts = make(map[string][]string, len(raw))
	for k, v := range raw {
		if k == "addopts" {
			args, err := splitArgs(v)
			if err != nil {
				args = strings.Fields(v)
			}
			opts[k] = args
			continue
		}
		opts[k] = []string{v}
	}
	return opts, found
}

// junitArg returns the report path the last --junitxml (or --junit-xml)
// argument in args names, and whether one is named at all. pytest takes the
// last one given.
func junitArg(args []string) (path string, named bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, opt := range []string{"--junitxml", "--junit-xml"} {
			switch {
			case a == opt:
				named = true
				if i+1 < len(args) {
					path = args[i+1]
					i++
				}
			case strings.HasPrefix(a, opt+"="):
				named = true
				path = a[len(opt)+1:]
			}
		}
	}
	return path, named
}

// commandJUnit reports whether the check's command line names junitxml, and
// the report path it names when that can be read: each argument is also
// split as a shell would split it, for commands such as sh -c "pytest
// --junitxml=r.xml".
func commandJUnit(argv []string) (path string, named bool) {
	for _, a := range argv {
		if !strings.Contains(a, "junitxml") && !strings.Contains(a, "junit-xml") {
			continue
		}
		named = true
		words, err := splitArgs(a)
		if err != nil {
			words = strings.Fields(a)
		}
		if p, ok := junitArg(words); ok && p != "" {
			path = p
		}
	}
	if p, ok := junitArg(argv); ok && p != "" {
		path = p
	}
	return path, named
}
