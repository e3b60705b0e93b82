package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

const junitPass = `<?xml version="1.0"?>
<testsuites><testsuite name="pkg" tests="2" failures="0" errors="0">
<testcase classname="pkg.T" name="ok"/>
<testcase classname="pkg.T" name="ok2"/>
</testsuite></testsuites>`

const junitSkip = `<?xml version="1.0"?>
<testsuite name="pkg" tests="2" skipped="1">
<testcase classname="pkg.T" name="ok"/>
<testcase classname="pkg.T" name="later"><skipped message="not yet"/></testcase>
</testsuite>`

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	pass := writeReport(t, dir, "pass.xml", junitPass)
	fail := writeReport(t, dir, "fail.xml", junitDoc)
	empty := writeReport(t, dir, "empty.xml", "")
	// A tool that ran nothing: no test case, whatever the attributes say.
	const noSuites, noCases = `<testsuites/>`, `<testsuite name="pkg" tests="5" failures="0" errors="0"></testsuite>`
	nothing := writeReport(t, dir, "nothing.xml", noSuites)
	claims := writeReport(t, dir, "claims.xml", noCases)
	result := func(edit func(m map[string]any)) string {
		m := map[string]any{"ok": true, "returncode": 0, "failed": 0, "passed": 2, "skipped": 0,
			"junit_sha256": sum(junitPass), "junit_path": "pass.xml", "cmd": []string{"pytest"}}
		if edit != nil {
			edit(m)
		}
		data, err := json.Marshal(m)
		require.NoError(t, err)
		f, err := os.CreateTemp(dir, "result-*.json")
		require.NoError(t, err)
		_, err = f.Write(data)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		return f.Name()
	}
	for _, tc := range []struct {
		name    string
		res     string
		junit   string
		code    int
		reasons []string
	}{
		{"accepted", result(nil), pass, exitOK, nil},
		{"missing failed", result(func(m map[string]any) { delete(m, "failed") }), pass, exitFailed, []string{"missing property 'failed'"}},
		{"digest mismatch", result(func(m map[string]any) { m["junit_sha256"] = sum("other") }), pass, exitFailed, []string{"does not match the JUnit file's sha256 " + sum(junitPass)}},
		{"path mismatch", result(nil), writeReport(t, dir, "copy.xml", junitPass), exitFailed, []string{`junit_path "pass.xml" is not the JUnit file given`}},
		{"count mismatch: the JUnit file has a failure", result(func(m map[string]any) {
			m["junit_sha256"], m["junit_path"] = sum(junitDoc), "fail.xml"
		}), fail, exitFailed, []string{"the JUnit file has 1 failures + errors, the result says failed 0"}},
		{"empty file", result(func(m map[string]any) { m["junit_sha256"], m["junit_path"] = sum(""), "empty.xml" }), empty, exitFailed, []string{"empty.xml is empty"}},
		{"missing file", result(func(m map[string]any) { m["junit_path"] = "gone.xml" }), filepath.Join(dir, "gone.xml"), exitFailed, []string{"gone.xml: does not exist"}},
		{"returncode 124", result(func(m map[string]any) { m["returncode"] = 124 }), pass, exitFailed, []string{"returncode is 124, not 0"}},
		{"extra field", result(func(m map[string]any) { m["warning"] = "x" }), pass, exitFailed, []string{"additional properties 'warning' not allowed"}},
		{"no test case (<testsuites/>)", result(func(m map[string]any) {
			m["passed"], m["junit_sha256"], m["junit_path"] = 0, sum(noSuites), "nothing.xml"
		}), nothing, exitFailed, []string{"nothing.xml holds no test case"}},
		{"no test case beside attributes that count 5", result(func(m map[string]any) {
			m["failed"], m["passed"], m["junit_sha256"], m["junit_path"] = 0, 0, sum(noCases), "claims.xml"
		}), claims, exitFailed, []string{"claims.xml holds no test case"}},
		{"passed 999 against 2 tests", result(func(m map[string]any) { m["passed"] = 999 }), pass, exitFailed,
			[]string{"the JUnit file has 2 passed tests, the result says passed 999"}},
		{"skipped mismatch", result(func(m map[string]any) { m["skipped"] = 1 }), pass, exitFailed,
			[]string{"the JUnit file has 0 skipped tests, the result says skipped 1"}},
		{"accepted: every count matches a file with a skipped test", result(func(m map[string]any) {
			m["passed"], m["skipped"], m["junit_sha256"], m["junit_path"] = 1, 1, sum(junitSkip), "skip.xml"
		}), writeReport(t, dir, "skip.xml", junitSkip), exitOK, nil},
		{"ok true with failures", result(func(m map[string]any) {
			m["failed"], m["junit_sha256"], m["junit_path"] = 1, sum(junitDoc), "fail.xml"
		}), fail, exitFailed, []string{"failed is 1, not 0", "ok is true beside failed 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "validate", "--dir", dir, tc.res, tc.junit)
			assert.Equal(t, tc.code, code, "%s%s", out, errs)
			for _, r := range tc.reasons {
				assert.Contains(t, out, r)
			}
			if tc.code == exitOK {
				assert.Equal(t, "accepted\n", out)
			}
		})
	}
	t.Run("duplicate keys", func(t *testing.T) {
		p := filepath.Join(dir, "dup.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"ok": true, "ok": false}`), 0o644))
		code, out, _ := runCmd(t, "validate", "--dir", dir, p, pass)
		assert.Equal(t, exitFailed, code)
		assert.Contains(t, out, `key "ok" given twice`)
	})
	t.Run("--json", func(t *testing.T) {
		code, out, _ := runCmd(t, "validate", "--json", "--dir", dir, result(func(m map[string]any) { m["ok"] = false }), pass)
		assert.Equal(t, exitFailed, code)
		var v struct {
			Accepted bool     `json:"accepted"`
			Reasons  []string `json:"reasons"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &v))
		assert.False(t, v.Accepted)
		assert.Equal(t, []string{"ok is false"}, v.Reasons)
	})
	t.Run("shadow logs and changes nothing", func(t *testing.T) {
		log := filepath.Join(dir, "shadow.log")
		bad := result(func(m map[string]any) { m["returncode"] = 124 })
		raw, err := os.ReadFile(bad)
		require.NoError(t, err)
		for range 2 {
			code, out, errs := runCmd(t, "validate", "--shadow", log, "--dir", dir, bad, pass)
			assert.Equal(t, exitOK, code)
			assert.Empty(t, out, "the payload is not touched")
			assert.Contains(t, errs, "shadow: rejected")
		}
		data, err := os.ReadFile(log)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		require.Len(t, lines, 2, "appended")
		var rec testrun.ShadowRecord
		require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
		assert.False(t, rec.Accepted)
		require.NotNil(t, rec.Raw)
		assert.Equal(t, string(raw), *rec.Raw, "the raw bytes")
		assert.Contains(t, rec.Reasons, "returncode is 124, not 0")
	})
	t.Run("--schema prints the schema", func(t *testing.T) {
		code, out, _ := runCmd(t, "validate", "--schema")
		assert.Equal(t, exitOK, code)
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"])
	})
	t.Run("usage", func(t *testing.T) {
		code, _, errs := runCmd(t, "validate", pass)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, "Usage: testresults validate")
	})
}
