package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newLiveCmd is a placeholder until the command is built.
func newLiveCmd(s *streams) *cobra.Command {
	_ = s
	return &cobra.Command{
		Use:    "live -i IFACE",
		Short:  "Sniff an interface and decode BC traffic as it flows",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("live: not implemented yet") },
	}
}
