package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Release builds (.ci/release) stamp these with -ldflags -X; they win over
// the build information, which a build outside a Git checkout or with
// -buildvcs=false lacks.
var (
	stampVersion string // the release's version, e.g. v1.3.0
	stampCommit  string // the full commit hash
	stampDate    string // the commit's date, RFC 3339 in UTC
)

// versionString is what --version prints after "bcdump ": the module
// version (or "(devel)" for a build from a work tree), the VCS revision,
// its time and whether the tree was modified, and the Go version, from
// the build information the Go toolchain embeds and the release stamp.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
		if stampVersion == "" {
			return "(unknown: built without module information)"
		}
	}
	return formatVersion(bi, stamp{stampVersion, stampCommit, stampDate})
}

type stamp struct{ version, commit, date string }

func formatVersion(bi *debug.BuildInfo, st stamp) string {
	v := bi.Main.Version
	if st.version != "" {
		v = st.version
	}
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
	if st.commit != "" {
		rev, at, modified = st.commit, st.date, ""
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

// newVersionCmd is "bcdump version": what --version prints, for those who
// type it as a command (as go, docker and kubectl take it).
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from and the Go version (as --version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "bcdump %s\n", versionString())
			return err
		},
	}
}
