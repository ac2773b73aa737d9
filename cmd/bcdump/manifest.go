package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newManifestCmd is a placeholder until the command is built.
func newManifestCmd(s *streams) *cobra.Command {
	_ = s
	return &cobra.Command{
		Use:    "manifest",
		Short:  "Generate and verify checksum manifests",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("manifest: not implemented yet") },
	}
}
