//go:build !windows

package main

import "os"

// vtReady is true: terminals here take ANSI escapes as they are.
func vtReady(*os.File) bool { return true }
