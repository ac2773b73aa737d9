//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// vtReady says whether ANSI escapes written to f show as colours, not as
// text: always for pipes and files (what reads them decides), and for a
// console once its virtual terminal processing is on (Windows Terminal
// has it on; the classic console since Windows 10 turns it on when
// asked). A console that refuses gets no colour.
func vtReady(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return true // not a console
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
