package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newHashCmd is a placeholder until the command is built.
func newHashCmd(s *streams) *cobra.Command {
	_ = s
	return &cobra.Command{
		Use:    "hash",
		Short:  "Print StringHash and FileHash values",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("hash: not implemented yet") },
	}
}
