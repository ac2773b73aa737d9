package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newDiffCmd is a placeholder until the command is built.
func newDiffCmd(s *streams) *cobra.Command {
	_ = s
	return &cobra.Command{
		Use:    "diff OLD NEW",
		Short:  "Compare the decoded conversations of two captures or saved JSON traces",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("diff: not implemented yet") },
	}
}
