package clidoc

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{name: "no build information", want: "testresults (devel)"},
		{name: "a checkout without vcs", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			want: "testresults (devel) go1.26.8"},
		{name: "a tagged module", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}},
			want: "testresults v0.3.0 go1.26.8"},
		{name: "a stamped build", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "64b00f59ded44a959a25ef73d423db90deaeb5be"},
			{Key: "vcs.time", Value: "2026-11-30T16:04:05Z"}, {Key: "vcs.modified", Value: "true"},
		}}, want: "testresults (devel) (commit 64b00f59ded44a959a25ef73d423db90deaeb5be, 2026-11-30T16:04:05Z, modified) go1.26.8"},
		{name: "a clean stamped build", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"},
		}}, want: "testresults v1.0.0 (commit abc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Version(tc.bi))
		})
	}
}

func TestModuleVersion(t *testing.T) {
	assert.Equal(t, "(devel)", ModuleVersion(nil))
	assert.Equal(t, "(devel)", ModuleVersion(&debug.BuildInfo{}))
	assert.Equal(t, "v0.3.0", ModuleVersion(&debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}))
}
