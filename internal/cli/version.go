package cli

import (
	"runtime/debug"
	"slices"
	"strings"
)

// resolveVersion identifies a build from its link-time stamps (ldVersion,
// ldCommit; "" when unset) and what the Go toolchain recorded (info, nil
// when none):
//   - version: the stamp; else the module version (`go install
//     module@version`, or the pseudo-version `go build` derives from git);
//     else a pseudo-version from the VCS revision and time; else "dev"
//     (go run, or a build with -buildvcs=false and no stamp).
//   - commit: the stamp; else the VCS revision, "+dirty" when the tree had
//     changes; else "unknown".
func resolveVersion(ldVersion, ldCommit string, info *debug.BuildInfo) VersionInfo {
	v := VersionInfo{Version: ldVersion, Commit: ldCommit}
	set := map[string]string{}
	if info != nil {
		v.GoVersion = info.GoVersion
		for _, s := range info.Settings {
			set[s.Key] = s.Value
		}
	}
	rev := set["vcs.revision"]
	dirty := ""
	if set["vcs.modified"] == "true" {
		dirty = "+dirty"
	}
	if v.Commit == "" && rev != "" {
		v.Commit = rev + dirty
	}
	if v.Version == "" && info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v.Version = info.Main.Version
	}
	if v.Version == "" && rev != "" {
		if t := strings.NewReplacer("-", "", ":", "", "T", "", "Z", "").Replace(set["vcs.time"]); len(t) == 14 {
			v.Version = "v0.0.0-" + t + "-" + rev[:min(12, len(rev))] + dirty
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	if info != nil {
		v.Build = buildLine(set)
	}
	return v
}

// buildLine describes the linking from the recorded build settings: a
// binary is static unless cgo is on and net or os/user use it (the netgo
// and osusergo tags keep them pure Go) or it loads NVML (the nvml tag).
func buildLine(set map[string]string) string {
	tags := strings.Split(set["-tags"], ",")
	cgo := set["CGO_ENABLED"] == "1"
	static := !slices.Contains(tags, "nvml") && (!cgo || (slices.Contains(tags, "netgo") && slices.Contains(tags, "osusergo")))
	var b strings.Builder
	b.WriteString("CGO_ENABLED=" + set["CGO_ENABLED"])
	if t := set["-tags"]; t != "" {
		b.WriteString(" -tags " + t)
	}
	if static {
		b.WriteString(" (static)")
	} else {
		b.WriteString(" (dynamically linked)")
	}
	return b.String()
}
