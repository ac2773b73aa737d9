//go:build !amd64

package transport

import "unsafe"

// prefetchFlow does nothing where there is no prefetch instruction written
// for it (see prefetch_amd64.s).
func prefetchFlow(unsafe.Pointer) {}
