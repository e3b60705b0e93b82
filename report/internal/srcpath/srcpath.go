package srcpath

import (
	"path/filepath"
	"strings"
)

// Rel returns the name a coverage report's source file is kept under.
//
// An absolute path under workDir is made relative to it; else an absolute
// path under one of roots (Cobertura's <source> elements) is made relative
// to that root. A relative path with exactly one root is taken as relative
// to that root: joined with it and, when the result lies under workDir,
// made relative to workDir (coverage.py writes <source> as the absolute
// package folder and file names relative to it). Anything else stays as
// written. Names use forward slashes.
func Rel(p, workDir string, roots []string) string {
	if p == "" {
		return p
	}
	if filepath.IsAbs(p) {
		if r, ok := under(p, workDir); ok {
			return r
		}
		for _, root := range roots {
			if r, ok := under(p, root); ok {
				return r
			}
		}
		return p
	}
	if len(roots) == 1 && roots[0] != "" {
		joined := filepath.Join(roots[0], p)
		if !filepath.IsAbs(joined) {
			return filepath.ToSlash(joined)
		}
		if r, ok := under(joined, workDir); ok {
			return r
		}
	}
	return p
}

// under returns p relative to dir when dir is absolute and p lies beneath
// it.
func under(p, dir string) (string, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return "", false
	}
	r, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}
