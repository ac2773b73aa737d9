//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// ttyColumns is the width of the console window f writes to, or 0.
func ttyColumns(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	// The window, not the buffer: the buffer is often 120 or 9001 wide
	// with a narrower window scrolling over it.
	return int(info.Window.Right-info.Window.Left) + 1
}
