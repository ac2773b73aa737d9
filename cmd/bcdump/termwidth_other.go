//go:build !unix && !windows

package main

import "os"

// ttyColumns is 0 here: the width comes from COLUMNS or is 80.
func ttyColumns(*os.File) int { return 0 }
