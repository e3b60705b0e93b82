package srcpath

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRel(t *testing.T) {
	tests := []struct {
		name, p, work string
		roots         []string
		want          string
	}{
		{"absolute under the working directory", "/repo/pkg/a.py", "/repo", nil, "pkg/a.py"},
		{"working directory with a trailing slash", "/repo/pkg/a.py", "/repo/", nil, "pkg/a.py"},
		{"absolute under a source root", "/src/pkg/a.py", "/repo", []string{"/other", "/src"}, "pkg/a.py"},
		{"working directory before the roots", "/repo/pkg/a.py", "/repo", []string{"/repo/pkg"}, "pkg/a.py"},
		{"absolute elsewhere stays as written", "/elsewhere/a.py", "/repo", []string{"/src"}, "/elsewhere/a.py"},
		{"a sibling folder is not under", "/repo2/a.py", "/repo", nil, "/repo2/a.py"},
		{"relative to the one root, under the working directory", "a.py", "/repo", []string{"/repo/pkg"}, "pkg/a.py"},
		{"relative to the one root, outside the working directory", "a.py", "/repo", []string{"/tmp/x"}, "a.py"},
		{"relative to a relative root", "a.py", "/repo", []string{"src"}, "src/a.py"},
		{"relative, several roots: as written", "a.py", "/repo", []string{"/repo/a", "/repo/b"}, "a.py"},
		{"relative, no root", "pkg/a.py", "/repo", nil, "pkg/a.py"},
		{"no working directory", "/repo/a.py", "", nil, "/repo/a.py"},
		{"the working directory itself", "/repo", "/repo", nil, "/repo"},
		{"climbing out of a relative root stays as written", "../../a.py", "/repo", []string{"/"}, "../../a.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Rel(tt.p, tt.work, tt.roots))
		})
	}
}
