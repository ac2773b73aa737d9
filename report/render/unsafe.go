package render

import "unsafe"

// unsafeBytes views s as bytes without copying; callers only read it.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
