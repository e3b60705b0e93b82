package clidoc

import (
	"runtime/debug"
	"strings"
)

// Version is the line --version prints: the module version, then the
// commit, its time and whether the tree had changes, when the build
// recorded them ("(devel)" for a build from a checkout).
func Version(bi *debug.BuildInfo) string {
	v := "(devel)"
	if bi != nil && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	var rev, at, modified string
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	line := "testresults " + v
	var parts []string
	if rev != "" {
		parts = append(parts, "commit "+rev)
	}
	if at != "" {
		parts = append(parts, at)
	}
	if modified == "true" {
		parts = append(parts, "modified")
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if bi != nil && bi.GoVersion != "" {
		line += " " + bi.GoVersion
	}
	return line
}

// ModuleVersion is the module version the binary was built from
// ("(devel)" for a build from a checkout).
func ModuleVersion(bi *debug.BuildInfo) string {
	if bi != nil && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
