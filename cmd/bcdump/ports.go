package main

import "github.com/bcdump/bcdump/dissect"

// portsFound prints what -p auto found in a capture (dissect.RunOptions's
// PortsFound).
func (s *streams) portsFound(name string, found []uint16) {
	if len(found) == 0 {
		s.noteOnce("bcdump: %s: -p auto: no BC traffic on other UDP ports", sourceName(name))
		return
	}
	s.noteOnce("bcdump: %s: -p auto: BC traffic on UDP %s %s", sourceName(name), plural(len(found), "port", "ports"), portList(found))
}

// progress is the progress line of decoding a capture (dissect.RunOptions's
// Progress), or nil when it is not drawn.
func (s *streams) progress(name string, total int64) dissect.Progress {
	if p := newProgress(s, name, total); p != nil {
		return p
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
