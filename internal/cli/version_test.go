package cli

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	t.Parallel()
	vcs := func(main string, kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/aiperf-go/aiperf", Version: main}}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name                string
		ldVersion, ldCommit string
		info                *debug.BuildInfo
		want                VersionInfo
	}{
		{"no build info", "", "", nil, VersionInfo{Version: "dev", Commit: "unknown"}},
		{"-buildvcs=false, no stamp", "", "", vcs("(devel)", "CGO_ENABLED", "1"),
			VersionInfo{Version: "dev", Commit: "unknown", GoVersion: "go1.26.8", Build: "CGO_ENABLED=1 (dynamically linked)"}},
		{"link-time stamp wins", "v1.2.3", "abc", vcs("v0.9.0", "vcs.revision", rev, "CGO_ENABLED", "0"),
			VersionInfo{Version: "v1.2.3", Commit: "abc", GoVersion: "go1.26.8", Build: "CGO_ENABLED=0 (static)"}},
		{"go install module@version", "", "", vcs("v0.4.0", "CGO_ENABLED", "1", "-tags", "netgo,osusergo"),
			VersionInfo{Version: "v0.4.0", Commit: "unknown", GoVersion: "go1.26.8", Build: "CGO_ENABLED=1 -tags netgo,osusergo (static)"}},
		{"go build in a checkout", "", "", vcs("v0.0.0-20261207190000-0123456789ab+dirty", "vcs.revision", rev, "vcs.time", "2026-12-07T19:00:00Z", "vcs.modified", "true", "CGO_ENABLED", "0"),
			VersionInfo{Version: "v0.0.0-20261207190000-0123456789ab+dirty", Commit: rev + "+dirty", GoVersion: "go1.26.8", Build: "CGO_ENABLED=0 (static)"}},
		{"VCS info without a module version", "", "", vcs("(devel)", "vcs.revision", rev, "vcs.time", "2026-12-07T19:00:00Z", "vcs.modified", "false", "CGO_ENABLED", "0", "-tags", "nvml"),
			VersionInfo{Version: "v0.0.0-20261207190000-0123456789ab", Commit: rev, GoVersion: "go1.26.8", Build: "CGO_ENABLED=0 -tags nvml (dynamically linked)"}},
		{"netgo alone still links cgo's os/user", "", "", vcs("(devel)", "CGO_ENABLED", "1", "-tags", "netgo"),
			VersionInfo{Version: "dev", Commit: "unknown", GoVersion: "go1.26.8", Build: "CGO_ENABLED=1 -tags netgo (dynamically linked)"}},
	} {
		if got := resolveVersion(c.ldVersion, c.ldCommit, c.info); got != c.want {
			t.Errorf("%s: got %+v; want %+v", c.name, got, c.want)
		}
	}
}
