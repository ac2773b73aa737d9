package main

import (
	"runtime/debug"
	"strings"
)

// versionString is what --version prints after "bcdump ": the module
// version (or "(devel)" for a build from a work tree), the VCS revision,
// its time and whether the tree was modified, and the Go version, from
// the build information the Go toolchain embeds.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: built without module information)"
	}
	return formatVersion(bi)
}

func formatVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	var b strings.Builder
	b.WriteString(v)
	if rev != "" {
		b.WriteString("\nrevision " + rev)
		if at != "" {
			b.WriteString(" (" + at + modified + ")")
		} else if modified != "" {
			b.WriteString(" (modified)")
		}
	}
	if bi.GoVersion != "" {
		b.WriteString("\nbuilt with " + bi.GoVersion)
	}
	return b.String()
}
