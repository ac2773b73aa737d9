package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/report/quote"
)

func newHashCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hash",
		Short: "Print StringHash and FileHash values",
		Long: `Print the hashes of the checksum handshake (protocol-facts 9.4): StringHash
of names (no case folding: "App.pyc" and "app.pyc" differ) and FileHash of
file contents (the .pyc timestamp, bytes 4-7, is skipped).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "string S...",
		Short: "Print StringHash of each string: HASH  STRING",
		Long: `Print StringHash of each argument's bytes as 0x%08X, two spaces, and the
string. Directory strings are hashed as given: a response's dir_hash is the
hash of the requested directory without its trailing '/'.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				fmt.Fprintf(s.out, "0x%08X  %s\n", checksum.StringHash(a), a)
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "file F...",
		Short: "Print FileHash and name hash of each file: CONTENT  NAME  PATH",
		Long: `For each file print its content hash (FileHash), the StringHash of its base
name as on disk (what a client sends and a manifest stores as name_hash), and
the path. A file that cannot be read is reported on standard error and the
others are still hashed; the exit status is then 2.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runHashFiles(s, args) },
	})
	return cmd
}

func runHashFiles(s *streams, paths []string) error {
	if err := s.reading(paths...); err != nil {
		return err
	}
	failed := 0
	for _, p := range paths {
		h, err := fileHash(p)
		if err != nil {
			fmt.Fprintln(s.err, "bcdump: hash file:", errorText(err))
			failed++
			continue
		}
		fmt.Fprintf(s.out, "0x%08X  0x%08X  %s\n", h, checksum.StringHash(filepath.Base(p)), quote.Name(p))
	}
	if failed > 0 {
		return fmt.Errorf("hash file: %d of %d files could not be hashed", failed, len(paths))
	}
	return nil
}

// fileHash streams the file through checksum.FileHasher, so a large file
// is not read into memory.
func fileHash(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return 0, fmt.Errorf("%s is a directory", path)
	}
	var h checksum.FileHasher
	if _, err := io.Copy(&h, f); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}
