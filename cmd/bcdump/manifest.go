package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/report/quote"
)

func newManifestCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "manifest",
		Short: "Generate and verify checksum manifests",
		Long: `A manifest lists the files a client hashes in each checksum round, in the
format of vanilla-1.1.json. Give one to read or stats with --manifest to name
the hashes in checksum messages and to flag files whose content differs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newManifestGenerateCmd(s), newManifestVerifyCmd(s))
	return cmd
}

func newManifestGenerateCmd(s *streams) *cobra.Command {
	var out, name string
	cmd := &cobra.Command{
		Use:   "generate GAMEDIR [-o FILE]",
		Short: "Build a manifest from an installed game",
		Long: `Scan an installed game the way a stock client answers the five checksum
rounds (scripts/ App.pyc, scripts/ Autoexec.pyc, scripts/ships *.pyc recursive,
scripts/mainmenu *.pyc, Scripts/Multiplayer *.pyc recursive) and write the
manifest to standard output, or to -o FILE. Names are hashed as they are on
disk; directory and filter matching ignores case, as on Windows.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runManifestGenerate(s, args[0], out, name)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "manifest file to write (default, or -: standard output)")
	cmd.Flags().StringVar(&name, "name", "", "name stored in the manifest's meta block (default: the game directory's name)")
	return cmd
}

func runManifestGenerate(s *streams, gameDir, out, name string) error {
	var hashed []string
	m, err := checksum.GenerateHashing(gameDir, func(path string) { hashed = append(hashed, path) })
	if err != nil {
		return fmt.Errorf("manifest generate: %w", err)
	}
	// The output, stdout included, must not be a file just hashed.
	if err := s.reading(hashed...); err != nil {
		return fmt.Errorf("manifest generate: %w", err)
	}
	if name == "" {
		if abs, err := filepath.Abs(gameDir); err == nil {
			name = filepath.Base(abs)
		}
	}
	m.Meta.Name = name
	if out == "" || out == "-" {
		return m.Save(quote.JSONWriter(s.out)) // file names as \u escapes, not raw controls
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		return fmt.Errorf("manifest generate: %w", err)
	}
	if err := outfile.WriteFile(out, b.Bytes(), s.outputRules()); err != nil {
		return fmt.Errorf("manifest generate: %w", err)
	}
	files, dirs := manifestCounts(m)
	fmt.Fprintf(s.err, "bcdump: wrote %s: %d rounds, %d files, %d subdirectories\n", quote.Name(out), len(m.Directories), files, dirs)
	return nil
}

// manifestCounts totals the files and subdirectories of every round.
func manifestCounts(m *checksum.Manifest) (files, dirs int) {
	var walk func(ds []checksum.ManifestDir)
	walk = func(ds []checksum.ManifestDir) {
		for i := range ds {
			dirs++
			files += len(ds[i].Files)
			walk(ds[i].Subdirs)
		}
	}
	for i := range m.Directories {
		files += len(m.Directories[i].Files)
		walk(m.Directories[i].Subdirs)
	}
	return files, dirs
}

func newManifestVerifyCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "verify MANIFEST GAMEDIR",
		Short: "List how an installed game differs from a manifest",
		Long: `Scan GAMEDIR for every round MANIFEST lists (with that entry's directory,
filter and recursion) and print one line per difference: a file or directory
missing on disk, an extra one, or a file whose content hash differs.
A round path that would leave GAMEDIR (absolute, ".", "..", a backslash
or a drive colon) is refused, not followed.
Exit status: 0 no differences, 1 differences, 2 trouble.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runManifestVerify(s, args[0], args[1])
		},
	}
}

func runManifestVerify(s *streams, manifest, gameDir string) error {
	m, err := s.loadManifest(manifest)
	if err != nil {
		return fmt.Errorf("manifest verify: %w", err)
	}
	if fi, err := os.Stat(gameDir); err != nil {
		return fmt.Errorf("manifest verify: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("manifest verify: %s is not a directory", gameDir)
	}
	var hashed []string
	diffs, err := checksum.VerifyHashing(m, gameDir, func(path string) { hashed = append(hashed, path) })
	if err != nil {
		return fmt.Errorf("manifest verify: %w", err)
	}
	if err := s.reading(hashed...); err != nil {
		return fmt.Errorf("manifest verify: %w", err)
	}
	for _, d := range diffs {
		d.Path = quote.Name(d.Path) // a newline in a name cannot forge a line
		fmt.Fprintln(s.out, d.String())
	}
	if len(diffs) > 0 {
		return &findingError{msg: fmt.Sprintf("%s differs from %s in %d places", gameDir, manifest, len(diffs))}
	}
	files, _ := manifestCounts(m)
	fmt.Fprintf(s.err, "%s matches %s (%d rounds, %d files)\n", quote.Name(gameDir), quote.Name(manifest), len(m.Directories), files)
	return nil
}
