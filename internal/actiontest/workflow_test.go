package actiontest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestExampleWorkflow: the example workflow parses, installs testresults as
// the README's Install section does (the release's .deb first, go install by
// module path as the fallback), and gives the action only inputs it has, the required
// ones included.
func TestExampleWorkflow(t *testing.T) {
	a, root := loadAction(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "ci", "github-workflow.yml"))
	require.NoError(t, err)
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(b, &wf))
	assert.Equal(t, map[string]string{"contents": "read"}, wf.Permissions, "no token beyond reading the repository")
	uses, installs := 0, 0
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			if gi := strings.Index(st.Run, "go install github.com/hangar-dev/testresults/cmd/testresults@"); gi >= 0 {
				installs++
				di := strings.Index(st.Run, "dpkg -i")
				assert.True(t, di >= 0 && di < gi, "the install step tries the .deb before go install")
			}
			if !strings.HasPrefix(st.Uses, "hangar-dev/testresults@") {
				continue
			}
			uses++
			for k := range st.With {
				assert.Contains(t, a.Inputs, k, "the example passes an input action.yml does not have")
			}
			for name, in := range a.Inputs {
				if in.Required {
					assert.NotEmpty(t, st.With[name], "the example leaves out the required input %s", name)
				}
			}
		}
	}
	assert.Equal(t, 1, installs)
	assert.Equal(t, 2, uses)
}
