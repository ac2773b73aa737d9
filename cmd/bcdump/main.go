// Command bcdump dissects Star Trek: Bridge Commander 1.1 multiplayer
// traffic from packet captures.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		limitMemory = func(n int64) { debug.SetMemoryLimit(n) }
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
