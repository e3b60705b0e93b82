package actiontest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// actionFile is the part of action.yml the runner reads for a composite
// action.
type actionFile struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID               string            `yaml:"id"`
			If               string            `yaml:"if"`
			Uses             string            `yaml:"uses"`
			Shell            string            `yaml:"shell"`
			WorkingDirectory string            `yaml:"working-directory"`
			Env              map[string]string `yaml:"env"`
			Run              string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func loadAction(t *testing.T) (actionFile, string) {
	t.Helper()
	root := testcorpus.Root(t)
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	require.NoError(t, err)
	var a actionFile
	require.NoError(t, yaml.Unmarshal(b, &a))
	require.Equal(t, "composite", a.Runs.Using)
	return a, root
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// actionRun is one use of the action in a job.
type actionRun struct {
	inputs map[string]string
	// env is more of the job's environment (what the check reads).
	env map[string]string
	// path is PATH for the steps; "" is the built CLI before systemPath().
	path string
}

type actionResult struct {
	code    int
	stdout  string
	stderr  string
	summary string
	outputs map[string]string // the action's outputs, as a later step reads them
}

// runAction runs the action's steps in ws the way the runner does: each run
// step as a file under `bash --noprofile --norc -eo pipefail`, in its
// working-directory, with GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP and
// GITHUB_WORKSPACE set and the step's env with ${{ inputs.* }} and
// ${{ github.action_path }} evaluated. A step that fails ends the action.
func runAction(t *testing.T, ws string, r actionRun) actionResult {
	t.Helper()
	a, root := loadAction(t)
	inputs := map[string]string{}
	for name, in := range a.Inputs {
		v, ok := r.inputs[name]
		if !ok {
			require.False(t, in.Required, "input %s is required", name)
			v = in.Default
		}
		inputs[name] = v
	}
	for name := range r.inputs {
		_, ok := a.Inputs[name]
		require.True(t, ok, "action.yml has no input %s", name)
	}
	eval := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "inputs."):
				v, ok := inputs[strings.TrimPrefix(e, "inputs.")]
				require.True(t, ok, "unknown input in %s", m)
				return v
			case e == "github.action_path":
				return root
			}
			t.Fatalf("the test does not evaluate %s", m)
			return ""
		})
	}

	tmp := t.TempDir()
	runnerTemp := filepath.Join(tmp, "runner-temp")
	require.NoError(t, os.Mkdir(runnerTemp, 0o755))
	summary := filepath.Join(tmp, "step-summary.md")
	require.NoError(t, os.WriteFile(summary, nil, 0o644))
	path := r.path
	if path == "" {
		path = cli(t) + string(os.PathListSeparator) + systemPath()
	}

	res := actionResult{outputs: map[string]string{}}
	stepOutputs := map[string]map[string]string{}
	var stdout, stderr bytes.Buffer
	for i, st := range a.Runs.Steps {
		require.Empty(t, st.Uses, "step %d: the test runs only run steps", i)
		require.Empty(t, st.If, "step %d: the test does not evaluate if:", i)
		require.Equal(t, "bash", st.Shell, "step %d", i)
		// Inputs must reach the script through env: pasted into the script
		// they could change what it runs.
		require.NotContains(t, st.Run, "${{", "step %d pastes an expression into its script", i)

		script := filepath.Join(tmp, "step.sh")
		require.NoError(t, os.WriteFile(script, []byte(st.Run), 0o644))
		output := filepath.Join(tmp, "output-"+st.ID)
		require.NoError(t, os.WriteFile(output, nil, 0o644))
		env := []string{
			"PATH=" + path,
			"HOME=" + tmp,
			"CI=true",
			"GITHUB_ACTIONS=true",
			"GITHUB_WORKSPACE=" + ws,
			"GITHUB_ACTION_PATH=" + root,
			"GITHUB_STEP_SUMMARY=" + summary,
			"GITHUB_OUTPUT=" + output,
			"RUNNER_TEMP=" + runnerTemp,
		}
		for k, v := range r.env {
			env = append(env, k+"="+v)
		}
		for k, v := range st.Env {
			env = append(env, k+"="+eval(v))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = filepath.Join(ws, eval(st.WorkingDirectory))
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		res.code = exitCode(t, cmd.Run())
		stepOutputs[st.ID] = readOutputs(t, output)
		if res.code != 0 {
			break
		}
	}
	for name, o := range a.Outputs {
		m := regexp.MustCompile(`^\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}$`).FindStringSubmatch(o.Value)
		require.NotNil(t, m, "output %s: %q", name, o.Value)
		if v, ok := stepOutputs[m[1]][m[2]]; ok {
			res.outputs[name] = v
		}
	}
	b, err := os.ReadFile(summary)
	require.NoError(t, err)
	res.summary, res.stdout, res.stderr = string(b), stdout.String(), stderr.String()
	return res
}

// packet is what `testresults packet` prints for the run, the text the
// action must have put into the job summary.
func packet(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(cli(t), "testresults"), append([]string{"packet", "--format", "markdown"}, args...)...)
	out, err := cmd.Output()
	require.NoError(t, err)
	return string(out)
}

// TestActionWithoutBase: with no base run every failure is annotated, in the
// order the report lists them, messages and titles escaped; the summary is
// the run's packet; the step exits with the check's own code.
func TestActionWithoutBase(t *testing.T) {
	needTools(t, "bash", "python3")
	ws := workspace(t)
	res := runAction(t, ws, actionRun{
		inputs: map[string]string{
			"command": `./check.sh ok=pass "old=fail:broken, 50%: yes&#10;second line" "new=error:a,b"`,
		},
		env: map[string]string{"CHECK_EXIT": "3"},
	})
	require.Equal(t, 3, res.code, "stderr:\n%s", res.stderr)
	assert.Contains(t, res.stdout, "check ran in "+filepath.Base(ws)+"\n")
	assert.Equal(t, []string{
		"::error title=failure%3A pkg.mod%3A%3Aold::broken, 50%25: yes%0Asecond line",
		"::error title=error%3A pkg.mod%3A%3Anew::a,b",
	}, commands(res.stdout))

	assert.Equal(t, "3", res.outputs["exit-code"])
	out := res.outputs["out"]
	require.True(t, filepath.IsAbs(out), "out %q", out)
	assert.Equal(t, filepath.Join(out, "TEST-RESULTS.json"), res.outputs["results"])
	assert.Equal(t, res.outputs["results"], res.outputs["run"], "without a base the run is TEST-RESULTS.json")
	assert.FileExists(t, filepath.Join(out, "check.xml"), "the check wrote its report into the report folder")

	want := packet(t, res.outputs["run"])
	assert.Equal(t, want, res.summary)
	assert.Contains(t, res.summary, "No base run given")
	assert.Contains(t, res.summary, "### Failures (2)")
	p, err := os.ReadFile(res.outputs["packet"])
	require.NoError(t, err)
	assert.Equal(t, want, string(p))
}

// TestActionWithBase: after a base run, only the failures the base did not
// have are annotated ("new failure"), the packet compares with the base, and
// a passing-but-changed check still exits with its own code.
func TestActionWithBase(t *testing.T) {
	needTools(t, "bash", "python3")
	ws := workspace(t)
	base := runAction(t, ws, actionRun{
		inputs: map[string]string{"command": "./check.sh ok=pass old=fail:old", "kind": "base", "out": "results/base"},
		env:    map[string]string{"CHECK_EXIT": "1"},
	})
	require.Equal(t, 1, base.code, "stderr:\n%s", base.stderr)
	assert.Equal(t, filepath.Join(ws, "results", "base"), base.outputs["out"])
	assert.Equal(t, []string{"::error title=failure%3A pkg.mod%3A%3Aold::old"}, commands(base.stdout))

	after := runAction(t, ws, actionRun{
		inputs: map[string]string{
			"command":  "./check.sh ok=fail:now:broken old=fail:old brand=error:x",
			"base-run": "results/base/TEST-RESULTS.json",
			"out":      "results/after",
		},
		env: map[string]string{"CHECK_EXIT": "1"},
	})
	require.Equal(t, 1, after.code, "stderr:\n%s", after.stderr)
	assert.Equal(t, []string{
		"::error title=new error%3A pkg.mod%3A%3Abrand::x",
		"::error title=new failure%3A pkg.mod%3A%3Aok::now:broken",
	}, commands(after.stdout), "new failures only, sorted by id")
	assert.Equal(t, filepath.Join(ws, "results", "after", "run.json"), after.outputs["run"])
	assert.Equal(t, packet(t, "--base", filepath.Join(ws, "results", "base", "TEST-RESULTS.json"), after.outputs["run"]), after.summary)
	assert.Contains(t, after.summary, "### New failures (2)")
}

// TestActionCapAndWorkingDirectory: annotations-cap bounds the annotations
// and says how many were left out; 0 prints none; the check runs in
// working-directory, and extra run flags reach testresults run.
func TestActionCapAndWorkingDirectory(t *testing.T) {
	needTools(t, "bash", "python3")
	ws := workspace(t)
	sub := filepath.Join(ws, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.Rename(filepath.Join(ws, "check.sh"), filepath.Join(sub, "check.sh")))
	for _, tc := range []struct {
		cap  string
		want []string
	}{
		{cap: "1", want: []string{
			"::error title=failure%3A pkg.mod%3A%3Aa::one",
			"::notice title=testresults::2 more failing tests are not annotated: see the job summary's packet and the run file (the results output)",
		}},
		{cap: "0", want: []string{
			"::notice title=testresults::3 more failing tests are not annotated: see the job summary's packet and the run file (the results output)",
		}},
	} {
		t.Run("cap "+tc.cap, func(t *testing.T) {
			res := runAction(t, ws, actionRun{inputs: map[string]string{
				"command":           "./check.sh a=fail:one b=fail:two c=fail:three",
				"annotations-cap":   tc.cap,
				"working-directory": "sub",
				"args":              "--run-id  capped-run ",
			}})
			require.Equal(t, 0, res.code, "stderr:\n%s", res.stderr)
			assert.Contains(t, res.stdout, "check ran in sub\n")
			assert.Equal(t, tc.want, commands(res.stdout))
			b, err := os.ReadFile(res.outputs["results"])
			require.NoError(t, err)
			assert.Contains(t, string(b), `"id": "capped-run"`)
		})
	}
}

// TestActionRefuses: a bad annotations-cap is a usage error before the check
// runs, and a job without testresults on PATH is told how to install it.
func TestActionRefuses(t *testing.T) {
	needTools(t, "bash", "python3")
	ws := workspace(t)
	res := runAction(t, ws, actionRun{inputs: map[string]string{"command": "touch ran", "annotations-cap": "ten"}})
	assert.Equal(t, 2, res.code)
	assert.Equal(t, []string{"::error title=testresults::annotations-cap must be a whole number, got 'ten'"}, commands(res.stdout))
	assert.NoFileExists(t, filepath.Join(ws, "ran"))

	// A failing check in a pipeline, or before another command, fails the
	// step, as a bash step of GitHub's own would; no TEST-RESULTS.json is
	// never a pass.
	for _, command := range []string{"CHECK_EXIT=1 ./check.sh bad=fail:x | cat", "CHECK_EXIT=1 ./check.sh bad=fail:x\necho done"} {
		res = runAction(t, ws, actionRun{inputs: map[string]string{"command": command}})
		assert.Equal(t, 1, res.code, "%q: %s%s", command, res.stdout, res.stderr)
	}
	res = runAction(t, ws, actionRun{inputs: map[string]string{"command": "true", "args": "--help"}})
	assert.Equal(t, 1, res.code, res.stdout)
	assert.Contains(t, res.stdout, "::error title=testresults::no TEST-RESULTS.json was written (exit 0)")

	res = runAction(t, ws, actionRun{inputs: map[string]string{"command": "touch ran"}, path: systemPath()})
	assert.Equal(t, 127, res.code)
	assert.Equal(t, []string{"::error title=testresults::testresults is not on PATH: install it first (a release package or archive, or go install github.com/hangar-dev/testresults/cmd/testresults@VERSION)"}, commands(res.stdout))
	assert.NoFileExists(t, filepath.Join(ws, "ran"))
}
