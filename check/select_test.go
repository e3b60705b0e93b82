package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func TestSelectTests(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "test_a.py"), nil, 0o644))
	runOf := func(dialects ...string) *testrun.Run {
		r := &testrun.Run{}
		for _, d := range dialects {
			r.Reports = append(r.Reports, testrun.ReportInfo{Dialect: d})
		}
		return r
	}
	tests := []struct {
		name string
		run  *testrun.Run
		ids  []string
		want []string
	}{
		{name: "pytest node ids", run: runOf("pytest-xunit2"), ids: []string{"tests.test_a::test_x", "tests.test_a.TestK::test_y", "tests.test_a::test_x"},
			want: []string{"pytest", "tests/test_a.py::test_x", "tests/test_a.py::TestK::test_y"}},
		{name: "a pytest file that is not there", run: runOf("pytest-xunit2"), ids: []string{"tests.test_a::test_x", "tests.gone::test_z"}},
		{name: "one go test keeps its exact pattern", run: runOf("gotest-json"), ids: []string{"example.com/m/p::TestA/sub"},
			want: []string{"go", "test", "-json", "-count=1", "-run", "^TestA$/^sub$", "example.com/m/p"}},
		{name: "go tests by their top-level names", run: runOf("gotestsum"), ids: []string{"example.com/m/p::TestA/sub", "example.com/m/p::TestB", "example.com/m/q::TestA"},
			want: []string{"go", "test", "-json", "-count=1", "-run", "^(TestA|TestB)$", "example.com/m/p", "example.com/m/q"}},
		{name: "jest names in one alternation", run: runOf("jest-junit"), ids: []string{"sum adds::sum adds", "a.b c::a.b c"},
			want: []string{"npx", "jest", "-t", `^(?:sum adds|a\.b c)$`}},
		{name: "reports of two runners", run: runOf("pytest-xunit2", "jest-junit"), ids: []string{"tests.test_a::test_x"}},
		{name: "no ids", run: runOf("gotestsum")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SelectTests(tt.run, tt.ids, dir))
		})
	}
}
