package main

import (
	"fmt"
	"strings"
)

// lineDiff shows the first differing line of two outputs.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  live: %s\n  file: %s", i+1, x, y)
		}
	}
	return "(equal)"
}
