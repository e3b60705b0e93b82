package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrepareUnreadableConfig(t *testing.T) {
	wd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wd, "real.ini"), []byte("[pytest]\naddopts = --junitxml=r.xml\n"), 0o644))
	require.NoError(t, os.Symlink("real.ini", filepath.Join(wd, "pytest.ini")))
	s := prepare(nil, []string{"pytest"}, wd, wd, "/r", ModeSet, false)
	require.Len(t, s.reasons, 1, "a linked configuration is not read, and the run says so")
	assert.Contains(t, s.env.get(envPytestAddopts), "--junitxml=/r/pytest.xml", "the runners still get the report folder")
}

func TestPrepare(t *testing.T) {
	report := "/r/run1"
	ours := "--junitxml=" + filepath.Join(report, PytestReport)
	tests := []struct {
		name     string
		env      []string
		argv     []string
		files    map[string]string
		mode     Mode
		addopts  string // PYTEST_ADDOPTS the check gets ("" unset)
		explicit []string
		vars     map[string]string
	}{
		{name: "nothing set", addopts: ours,
			vars: map[string]string{envGotestsumJUnit: filepath.Join(report, GotestsumReport)}},
		{name: "appended to what is there", env: []string{envPytestAddopts + "=-x -q"}, addopts: "-x -q " + ours},
		{name: "PYTEST_ADDOPTS names a file", env: []string{envPytestAddopts + "=--junit-xml=out/mine.xml"},
			addopts: "--junit-xml=out/mine.xml", explicit: []string{"WD/out/mine.xml"}},
		{name: "command line names junitxml", argv: []string{"pytest", "--junitxml", "$HOME/r.xml"},
			env: []string{"HOME=/home/u"}, explicit: []string{"/home/u/r.xml"}},
		{name: "pytest.ini addopts", files: map[string]string{"pytest.ini": "[pytest]\naddopts = --junitxml=reports/ini.xml\n"},
			explicit: []string{"WD/reports/ini.xml"}},
		{name: "pyproject array", files: map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\naddopts = [\"--junitxml=reports/toml.xml\"]\n"},
			explicit: []string{"WD/reports/toml.xml"}},
		{name: "setup.cfg", files: map[string]string{"setup.cfg": "[tool:pytest]\naddopts = --junitxml reports/cfg.xml\n"},
			explicit: []string{"WD/reports/cfg.xml"}},
		{name: "tox.ini", files: map[string]string{"tox.ini": "[pytest]\naddopts = --junit-xml=reports/tox.xml\n"},
			explicit: []string{"WD/reports/tox.xml"}},
		{name: "junit_family names no file", files: map[string]string{"pytest.ini": "[pytest]\njunit_family = xunit1\n"}, addopts: ours},
		{name: "collect sets nothing", mode: ModeCollect,
			files: map[string]string{"pytest.ini": "[pytest]\naddopts = --junitxml=reports/ini.xml\n"}, explicit: []string{"WD/reports/ini.xml"}},
		{name: "gotestsum already set", env: []string{envGotestsumJUnit + "=gs.xml"}, addopts: ours,
			explicit: []string{"WD/gs.xml"}, vars: map[string]string{envGotestsumJUnit: ""}},
		{name: "jest-junit used", files: map[string]string{"package.json": `{"jest": {"reporters": ["default", "jest-junit"]}}`},
			addopts: ours, vars: map[string]string{envJestDir: report, envJestSuiteErrors: "true"}},
		{name: "jest without jest-junit", files: map[string]string{"package.json": `{"devDependencies": {"jest": "29"}}`},
			addopts: ours, vars: map[string]string{envJestDir: "", envJestSuiteErrors: ""}},
		{name: "jest-junit folder already set", files: map[string]string{"jest.config.js": `module.exports = {reporters: ['jest-junit']}`},
			env: []string{envJestDir + "=out"}, addopts: ours, explicit: []string{"WD/out/junit.xml"}, vars: map[string]string{envJestDir: "", envJestSuiteErrors: "true"}},
		{name: "jest-junit suite errors chosen", files: map[string]string{"package.json": `{"jest": {"reporters": ["jest-junit"]}}`},
			env: []string{envJestSuiteErrors + "=false"}, addopts: ours, vars: map[string]string{envJestDir: report, envJestSuiteErrors: ""}},
		{name: "collect sets no jest variable", mode: ModeCollect, env: []string{envJestFile + "=j.xml"},
			explicit: []string{"WD/j.xml"}, vars: map[string]string{envJestSuiteErrors: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := t.TempDir()
			for name, body := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(wd, name), []byte(body), 0o644))
			}
			argv := tt.argv
			if argv == nil {
				argv = []string{"pytest"}
			}
			mode := tt.mode
			if mode == "" {
				mode = ModeSet
			}
			s := prepare(environ(tt.env), argv, wd, wd, report, mode, false)
			assert.Empty(t, s.reasons)
			assert.Equal(t, report, s.env.get(EnvTestsDir))
			assert.Equal(t, tt.addopts, s.env.get(envPytestAddopts))
			var want []string
			for _, p := range tt.explicit {
				if len(p) > 3 && p[:3] == "WD/" {
					p = filepath.Join(wd, p[3:])
				}
				want = append(want, p)
			}
			assert.Equal(t, want, s.explicit)
			for name, v := range tt.vars {
				var set string
				for _, kv := range s.vars {
					if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
						set = kv[len(name)+1:]
					}
				}
				assert.Equal(t, v, set, name)
			}
		})
	}
}

// TestPrepareBrokenConfig: a configuration pytest itself would refuse is a
// stated reason naming the file, never a crash or a silent guess, and the
// runners still get the report folder.
func TestPrepareBrokenConfig(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"TOML syntax":                  {"pyproject.toml": "[tool.pytest.ini_options]\naddopts = [\"-q\"\n"},
		"both pytest tables":           {"pyproject.toml": "[tool.pytest]\naddopts = [\"-q\"]\n[tool.pytest.ini_options]\naddopts = \"-x\"\n"},
		"native addopts as a string":   {"pyproject.toml": "[tool.pytest]\naddopts = \"--junitxml=r.xml\"\n"},
		"pytest.toml outside [pytest]": {"pytest.toml": "addopts = [\"--junitxml=r.xml\"]\n"},
		"INI line iniconfig refuses":   {"tox.ini": "[tox]\nenvlist = py3\nstray\n"},
		"INI key twice":                {"setup.cfg": "[tool:pytest]\naddopts = -q\naddopts = --junitxml=r.xml\n"},
		"addopts with an open quote":   {"pytest.ini": "[pytest]\naddopts = --junitxml='r.xml\n"},
	} {
		t.Run(name, func(t *testing.T) {
			wd := t.TempDir()
			var file string
			for f, body := range files {
				file = f
				require.NoError(t, os.WriteFile(filepath.Join(wd, f), []byte(body), 0o644))
			}
			s := prepare(nil, []string{"pytest"}, wd, wd, "/r", ModeSet, false)
			require.Len(t, s.reasons, 1)
			assert.Contains(t, s.reasons[0], filepath.Join(wd, file))
			assert.Contains(t, s.env.get(envPytestAddopts), "--junitxml=/r/pytest.xml")
			assert.Empty(t, s.explicit)
		})
	}
}

// TestPreparePytestTOMLFirst: pytest 9 reads pytest.toml before any other
// file of its folder, and [tool.pytest]'s list elements are arguments as
// they are (no shell splitting).
func TestPreparePytestTOMLFirst(t *testing.T) {
	wd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wd, "pytest.ini"), []byte("[pytest]\naddopts = --junitxml=ini.xml\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wd, "pytest.toml"), []byte("[pytest]\naddopts = [\"--junitxml\", \"out dir/toml.xml\"]\n"), 0o644))
	s := prepare(nil, []string{"pytest"}, wd, wd, "/r", ModeSet, false)
	assert.Empty(t, s.reasons)
	assert.Equal(t, []string{filepath.Join(wd, "out dir", "toml.xml")}, s.explicit)
	assert.Empty(t, s.env.get(envPytestAddopts), "the repository's own report is read, ours not added")
}
