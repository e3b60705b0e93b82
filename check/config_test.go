package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"-x  -q", []string{"-x", "-q"}, false},
		{`--junitxml="out dir/r.xml" -k 'a or b'`, []string{"--junitxml=out dir/r.xml", "-k", "a or b"}, false},
		{`a\ b "c\"d" 'e\f'`, []string{"a b", `c"d`, `e\f`}, false},
		{`"open`, nil, true},
		{`'open`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := splitArgs(tt.in)
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	argv := []string{"pytest", "-k", "a b", "it's", ""}
	back, err := splitArgs(quoteArgs(argv))
	require.NoError(t, err)
	assert.Equal(t, argv, back, "quoteArgs round-trips")
}

func TestJUnitArg(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		path  string
		named bool
	}{
		{"none", []string{"-q", "--junit-prefix=x"}, "", false},
		{"equals", []string{"--junitxml=a.xml"}, "a.xml", true},
		{"alias", []string{"--junit-xml", "b.xml"}, "b.xml", true},
		{"last wins", []string{"--junitxml=a.xml", "--junit-xml=b.xml"}, "b.xml", true},
		{"no value", []string{"--junitxml"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, named := junitArg(tt.args)
			assert.Equal(t, tt.path, p)
			assert.Equal(t, tt.named, named)
		})
	}
	p, named := commandJUnit([]string{"sh", "-c", "python3 -m pytest --junitxml='out/r 1.xml' -q"})
	assert.True(t, named)
	assert.Equal(t, "out/r 1.xml", p)
	_, named = commandJUnit([]string{"pytest", "-q"})
	assert.False(t, named)
}

func TestIniSection(t *testing.T) {
	ini := `# comment
[tool:pytest]
addopts = -ra
    --junitxml=reports/unit.xml
  -p no:cacheprovider
junit_family: xunit1
; another comment
[other]
addopts = --junitxml=wrong.xml
`
	opts, found, err := iniSection([]byte(ini), "tool:pytest")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, []string{"-ra", "--junitxml=reports/unit.xml", "-p", "no:cacheprovider"}, opts["addopts"])
	assert.Equal(t, []string{"xunit1"}, opts["junit_family"])
	_, found, err = iniSection([]byte(ini), "pytest")
	require.NoError(t, err)
	assert.False(t, found)

	// What iniconfig refuses, pytest refuses: the run says so instead of
	// guessing at the file.
	for _, bad := range []string{
		"[pytest]\naddopts = -q\nstray line\n",
		"[pytest]\naddopts = -q\naddopts = -x\n",
		"addopts = --junitxml=r.xml\n",
		"[pytest]\naddopts = \"--junitxml=open\n",
	} {
		_, _, err := iniSection([]byte(bad), "pytest")
		assert.ErrorIs(t, err, errINI, "%q", bad)
	}
	// Keys are case-sensitive, as pytest reads them.
	opts, _, err = iniSection([]byte("[pytest]\nADDOPTS = --junitxml=r.xml\n"), "pytest")
	require.NoError(t, err)
	assert.Nil(t, opts["addopts"])
}

// TestPyprojectForms holds pyproject.toml forms that a real TOML parser
// reads differently from a line-by-line reader; each names the JUnit path
// pytest would write.
func TestPyprojectForms(t *testing.T) {
	tests := []struct {
		name, doc, junit string
	}{
		{"string", "[tool.pytest.ini_options]\naddopts = \"-q --junitxml=out/a.xml\"\n", "out/a.xml"},
		{"literal", "[tool.pytest.ini_options]\naddopts = '--junitxml=C:\\x.xml'\n", "C:x.xml"},
		{"array over lines", "[ tool . pytest . \"ini_options\" ]\naddopts = [\n  \"-q\", # quiet\n  '--junit-xml=out/b.xml',\n]\nminversion = \"7.0\"\n", "out/b.xml"},
		{"multi-line string", "[tool.pytest.ini_options]\naddopts = \"\"\"\n-q\n--junitxml=c.xml\n\"\"\"\n", "c.xml"},
		{"line-ending backslash", "[tool.pytest.ini_options]\naddopts = \"\"\"--junitxml=reports/\\\n    unit.xml -q\"\"\"\n", "reports/unit.xml"},
		{"dotted key in the table", "[tool.pytest]\nini_options.addopts = \"--junitxml=d.xml\"\n", "d.xml"},
		{"dotted key at the top", "tool.pytest.ini_options.addopts = \"--junitxml=e.xml\"\n", "e.xml"},
		{"inline table", "[tool.pytest]\nini_options = { addopts = \"--junitxml=f.xml\", junit_family = \"xunit1\" }\n", "f.xml"},
		{"comment with a bracket after the header", "[tool.pytest.ini_options] # see [docs]\naddopts = \"--junitxml=g.xml\"\n", "g.xml"},
		{"pytest 9 native table", "[tool.pytest]\nminversion = \"9.0\"\naddopts = [\"-ra\", \"--junitxml=h.xml\"]\n", "h.xml"},
		{"pytest 9 list element with a space is one argument", "[tool.pytest]\naddopts = [\"--junitxml\", \"out dir/i.xml\"]\n", "out dir/i.xml"},
		{"a header inside another table's string", "[tool.black]\nx = \"\"\"\n[tool.pytest.ini_options]\naddopts = '--junitxml=no.xml'\n\"\"\"\n", ""},
		{"another table after", "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n[tool.coverage]\naddopts = \"--junitxml=no.xml\"\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _, err := pyprojectPytest([]byte(tt.doc))
			require.NoError(t, err)
			path, _ := junitArg(opts["addopts"])
			assert.Equal(t, tt.junit, path)
		})
	}
}

func TestPyprojectRefused(t *testing.T) {
	for name, doc := range map[string]string{
		"unterminated array":      "[tool.pytest.ini_options]\naddopts = [\"-q\"",
		"both tables":             "[tool.pytest]\naddopts = [\"-q\"]\n[tool.pytest.ini_options]\naddopts = \"-x\"\n",
		"native string addopts":   "[tool.pytest]\naddopts = \"--junitxml=r.xml\"\n",
		"native non-string item":  "[tool.pytest]\naddopts = [\"-q\", 1]\n",
		"tool.pytest not a table": "[tool]\npytest = \"x\"\n",
		"duplicate key":           "[tool.pytest.ini_options]\naddopts = \"-q\"\naddopts = \"-x\"\n",
		"unterminated quote":      "[tool.pytest.ini_options]\naddopts = \"--junitxml='open\"\n",
	} {
		_, _, err := pyprojectPytest([]byte(doc))
		assert.ErrorIs(t, err, errTOML, name)
	}
	_, _, err := pyprojectPytest([]byte("[tool.pytest.ini_options]\naddopts = [\n\"-q\",\n\"-x\" \"-y\"]\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 4, column 6", "a syntax error names its line and column")

	opts, err := pytestTOMLFile([]byte("[pytest]\naddopts = [\"--junitxml=p.xml\"]\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"--junitxml=p.xml"}, opts["addopts"])
	_, err = pytestTOMLFile([]byte("addopts = [\"-q\"]\n"))
	assert.ErrorIs(t, err, errTOML, "pytest.toml options outside [pytest]")
	opts, err = pytestTOMLFile(nil)
	require.NoError(t, err)
	assert.Empty(t, opts)
}

func TestFindPytestConfig(t *testing.T) {
	write := func(t *testing.T, dir, name, body string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	t.Run("first file wins, searched upwards", func(t *testing.T) {
		root := t.TempDir()
		sub := filepath.Join(root, "pkg", "tests")
		require.NoError(t, os.MkdirAll(sub, 0o755))
		write(t, root, "setup.cfg", "[tool:pytest]\naddopts = --junitxml=cfg.xml\n")
		write(t, root, "tox.ini", "[tox]\nenvlist = py3\n")
		cfg, err := findPytestConfig(sub, root)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, "setup.cfg"), cfg.File, "tox.ini without [pytest] is passed over")
		assert.Equal(t, []string{"--junitxml=cfg.xml"}, cfg.Args)
		write(t, root, "pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-q\"\n")
		cfg, err = findPytestConfig(sub, root)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, "pyproject.toml"), cfg.File)
		write(t, filepath.Join(root, "pkg"), "pytest.ini", "")
		cfg, err = findPytestConfig(sub, root)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, "pkg", "pytest.ini"), cfg.File, "an empty pytest.ini still is pytest's")
	})
	t.Run("not above the repository", func(t *testing.T) {
		outer := t.TempDir()
		repo := filepath.Join(outer, "repo")
		write(t, outer, "pytest.ini", "[pytest]\naddopts = --junitxml=outer.xml\n")
		require.NoError(t, os.MkdirAll(repo, 0o755))
		cfg, err := findPytestConfig(repo, repo)
		require.NoError(t, err)
		assert.Empty(t, cfg.File)
	})
	t.Run("a linked configuration is refused", func(t *testing.T) {
		repo := t.TempDir()
		write(t, repo, "real.ini", "[pytest]\n")
		require.NoError(t, os.Symlink(filepath.Join(repo, "real.ini"), filepath.Join(repo, "pytest.ini")))
		_, err := findPytestConfig(repo, repo)
		assert.Error(t, err)
	})
}

func TestVerifyReports(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
		err  bool
	}{
		{"block", "image: x\nverify_reports:\n  - build/reports/**/*.xml  # ours\n  - \"out/junit.xml\"\n  - 'a''b.xml'\nother: 1\n", []string{"build/reports/**/*.xml", "out/junit.xml", "a'b.xml"}, false},
		{"block at key indent", "verify_reports:\n- r.xml\n", []string{"r.xml"}, false},
		{"flow", "verify_reports: [a.xml, \"b/*.xml\"]\n", []string{"a.xml", "b/*.xml"}, false},
		{"scalar", "verify_reports: r/*.xml\n", []string{"r/*.xml"}, false},
		{"absent", "image: x\n", nil, false},
		{"nested key is not ours", "env:\n  verify_reports:\n    - x.xml\n", nil, false},
		{"twice", "verify_reports: a\nverify_reports: b\n", nil, true},
		{"mapping", "verify_reports:\n  path: x\n", nil, true},
		{"anchor", "verify_reports: *x\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verifyReports([]byte(tt.doc))
			if tt.err {
				assert.ErrorIs(t, err, errYAML)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"out/junit.xml", "out/junit.xml", true},
		{"**/*.xml", "a.xml", true},
		{"**/*.xml", "a/b/c.xml", true},
		{"build/**/TEST-*.xml", "build/TEST-x.xml", true},
		{"build/**/TEST-*.xml", "build/a/b/TEST-x.xml", true},
		{"build/**/TEST-*.xml", "other/build/TEST-x.xml", false},
		{"reports/*.xml", "reports/a/b.xml", false},
	}
	for _, tt := range tests {
		g, err := parseGlob(tt.glob)
		require.NoError(t, err)
		assert.Equal(t, tt.want, g.match(splitSlash(tt.path)), "%s ~ %s", tt.glob, tt.path)
	}
	for _, bad := range []string{"/etc/*.xml", "../up.xml", "a/../../b.xml", "[", ""} {
		_, err := parseGlob(bad)
		assert.ErrorIs(t, err, errGlob, bad)
	}
}

func TestUsualPlace(t *testing.T) {
	for path, want := range map[string]bool{
		"target/surefire-reports/TEST-a.B.xml":         true,
		"mod/target/failsafe-reports/TEST-it.xml":      true,
		"build/test-results/test/TEST-x.xml":           true,
		"target/nextest/ci/junit.xml":                  true,
		"reports/vitest-junit.xml":                     true,
		"junit.xml":                                    true,
		"test-results/playwright.xml":                  true,
		"a/test-reports/x/y.xml":                       true,
		"coverage.xml":                                 true,
		"coverage/cobertura-coverage.xml":              true,
		"coverage/lcov.info":                           true,
		"out/app.lcov":                                 true,
		"target/surefire-reports/failsafe-summary.xml": false,
		"pom.xml":                            false,
		"target/surefire-reports/TEST-a.txt": false,
		"src/test-results.go":                false,
		"build/TEST-x.xml":                   false,
	} {
		assert.Equal(t, want, usualPlace(path), path)
	}
}

func TestTail(t *testing.T) {
	tl := newTail(10)
	tl.Write([]byte("abc"))
	assert.Equal(t, "abc", string(tl.Bytes()))
	tl.Write([]byte("defg\nhij"))
	assert.Equal(t, "hij", string(tl.Bytes()), "11 bytes in 10: the cut first line is dropped")
	tl = newTail(8)
	tl.Write([]byte("line one\nline two\n"))
	assert.Equal(t, "", string(tl.Bytes()), "the partial first line is dropped")
	tl = newTail(12)
	for _, s := range []string{"aaa\n", "bbb\n", "ccc\n", "ddd\n"} {
		tl.Write([]byte(s))
	}
	assert.Equal(t, "ccc\nddd\n", string(tl.Bytes()))
	tl = newTail(4)
	tl.Write([]byte("xéééé"))
	got := tl.Bytes()
	assert.Equal(t, "éé", string(got), "no partial UTF-8 at the start")
}

// TestConfigCorpus reads each real configuration file of
// testdata/config (see its MANIFEST: repository, path and commit of each)
// under the name it has in its repository and checks whether pytest would
// use it and the JUnit path it names; the environment files are read for
// verify_reports.
func TestConfigCorpus(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "config", "MANIFEST"))
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		require.Len(t, f, 7, line)
		file, form, repo, pytest, junit := f[0], f[1], f[2], f[5], f[6]
		require.Len(t, f[4], 40, "%s: a commit", file)
		n++
		t.Run(file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "config", file))
			require.NoError(t, err)
			dir := t.TempDir()
			if pytest == "yaml" {
				globs, err := verifyReports(body)
				require.NoError(t, err, repo)
				want := []string(nil)
				if junit != "-" {
					want = strings.Split(junit, ",")
				}
				assert.Equal(t, want, globs)
				return
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, form), body, 0o644))
			cfg, err := findPytestConfig(dir, dir)
			require.NoError(t, err, repo)
			if pytest == "yes" {
				assert.Equal(t, filepath.Join(dir, form), cfg.File, "pytest reads %s of %s", form, repo)
			} else {
				assert.Empty(t, cfg.File, "%s of %s holds no pytest configuration", form, repo)
			}
			path, named := junitArg(cfg.Args)
			if junit == "-" {
				assert.False(t, named, "no JUnit path in %s", repo)
				return
			}
			assert.Equal(t, junit, path)
		})
	}
	assert.GreaterOrEqual(t, n, 20)
}
