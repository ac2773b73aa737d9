package transport

import "unsafe"

// prefetchFlow asks the CPU to load the first five cache lines at p (a
// flow's hot state, TestFlowLayout) without waiting for them.
//
//go:noescape
func prefetchFlow(p unsafe.Pointer)
