package actiontest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// gitlabJob is the part of a GitLab CI job the template sets.
type gitlabJob struct {
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		When     string   `yaml:"when"`
		ExposeAs string   `yaml:"expose_as"`
		Paths    []string `yaml:"paths"`
		Reports  struct {
			JUnit []string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

func loadGitLabTemplate(t *testing.T) gitlabJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testcorpus.Root(t), "ci", "gitlab", "testresults.gitlab-ci.yml"))
	require.NoError(t, err)
	var doc map[string]yaml.Node
	require.NoError(t, yaml.Unmarshal(b, &doc))
	require.Len(t, doc, 1, "the template defines one hidden job and nothing a pipeline would run")
	node, ok := doc[".testresults"]
	require.True(t, ok, "the template defines .testresults")
	var job gitlabJob
	require.NoError(t, node.Decode(&job))
	return job
}

// TestGitLabTemplate: the hidden job parses, keeps the report folder and
// hands its JUnit files to GitLab whatever the check's outcome, and every
// variable it reads has a default.
func TestGitLabTemplate(t *testing.T) {
	job := loadGitLabTemplate(t)
	assert.Equal(t, "always", job.Artifacts.When)
	assert.Equal(t, []string{"testresults-out/"}, job.Artifacts.Paths)
	assert.Equal(t, []string{"testresults-out/*.xml"}, job.Artifacts.Reports.JUnit)
	assert.True(t, strings.HasSuffix(job.Artifacts.Paths[0], "/"), "expose_as needs a folder path ending in /")
	script := strings.Join(job.Script, "\n")
	for _, v := range []string{"TESTRESULTS_COMMAND", "TESTRESULTS_KIND", "TESTRESULTS_BASE_RUN", "TESTRESULTS_ARGS"} {
		assert.Contains(t, job.Variables, v)
		assert.Contains(t, script, "$"+v)
	}
	assert.Equal(t, "after_turn", job.Variables["TESTRESULTS_KIND"])
}

// TestGitLabTemplateScript runs the job's script as GitLab's shell executor
// would (each entry in turn, set -eo pipefail, in CI_PROJECT_DIR, the job's
// variables in the environment): the exit code is the check's, the JUnit
// file lands where artifacts:reports:junit looks, and the packet, compared
// with the base, is in the report folder.
func TestGitLabTemplateScript(t *testing.T) {
	needTools(t, "bash")
	job := loadGitLabTemplate(t)
	ws := workspace(t)
	path := cli(t) + string(os.PathListSeparator) + systemPath()
	run := func(vars map[string]string) (int, string) {
		t.Helper()
		env := []string{"PATH=" + path, "HOME=" + t.TempDir(), "CI=true", "GITLAB_CI=true", "CI_PROJECT_DIR=" + ws}
		for k, v := range job.Variables {
			if _, ok := vars[k]; !ok {
				env = append(env, k+"="+v)
			}
		}
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		script := "set -eo pipefail\n" + strings.Join(job.Script, "\n")
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
		cmd.Dir, cmd.Env = ws, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		return exitCode(t, cmd.Run()), out.String()
	}

	code, log := run(map[string]string{"TESTRESULTS_COMMAND": "CHECK_EXIT=1 ./check.sh ok=pass old=fail:old", "TESTRESULTS_KIND": "base"})
	require.Equal(t, 1, code, log)
	require.NoError(t, os.Rename(filepath.Join(ws, "testresults-out"), filepath.Join(ws, "base")))

	code, log = run(map[string]string{
		"TESTRESULTS_COMMAND":  "CHECK_EXIT=4 ./check.sh ok=pass old=fail:old new=fail:new",
		"TESTRESULTS_BASE_RUN": "base/TEST-RESULTS.json",
		"TESTRESULTS_ARGS":     "--run-id gitlab-run",
	})
	require.Equal(t, 4, code, log)
	assert.Contains(t, log, "check ran in")
	matches, err := filepath.Glob(filepath.Join(ws, job.Artifacts.Reports.JUnit[0]))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(ws, "testresults-out", "check.xml")}, matches)
	b, err := os.ReadFile(filepath.Join(ws, "testresults-out", "packet.md"))
	require.NoError(t, err)
	assert.Equal(t, packet(t, "--base", filepath.Join(ws, "base", "TEST-RESULTS.json"), filepath.Join(ws, "testresults-out", "run.json")), string(b))
	assert.Contains(t, string(b), "### New failures (1)")
	assert.Contains(t, string(b), "gitlab\\-run")

	code, log = run(nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, log, "set TESTRESULTS_COMMAND")

	// A failing check in a pipeline, or before another command, fails the
	// job, as GitLab's own script would.
	for _, command := range []string{"CHECK_EXIT=1 ./check.sh bad=fail:x | cat", "CHECK_EXIT=1 ./check.sh bad=fail:x\necho done"} {
		code, log = run(map[string]string{"TESTRESULTS_COMMAND": strings.ReplaceAll(command, `\n`, "\n")})
		assert.Equal(t, 1, code, "%q: %s", command, log)
	}
	// No TEST-RESULTS.json is never a pass.
	code, log = run(map[string]string{"TESTRESULTS_COMMAND": "true", "TESTRESULTS_ARGS": "--help"})
	assert.Equal(t, 1, code, log)
	assert.Contains(t, log, "no TEST-RESULTS.json was written (exit 0)")
}
