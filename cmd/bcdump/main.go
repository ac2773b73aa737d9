// Command bcdump dissects Star Trek: Bridge Commander 1.1 multiplayer
// traffic from packet captures.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
