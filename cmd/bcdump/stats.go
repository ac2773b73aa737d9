package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newStatsCmd is a placeholder until the command is built.
func newStatsCmd(s *streams) *cobra.Command {
	_ = s
	return &cobra.Command{
		Use:    "stats FILE...",
		Short:  "Summarize captures per flow: traffic, reliability, RTT, opcodes, anomalies",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("stats: not implemented yet") },
	}
}
