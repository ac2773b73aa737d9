package main

import (
	_ "github.com/fatih/color"
	_ "github.com/gopacket/gopacket"
	_ "github.com/gopacket/gopacket/layers"
	_ "github.com/gopacket/gopacket/pcapgo"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/spf13/cobra"
)

func main() {}
