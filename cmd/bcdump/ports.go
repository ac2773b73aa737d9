package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bcdump/bcdump/dissect"
)

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

// unmatched prints, for a capture that had nothing on the game ports, what
// it had: which other UDP ports frame as BC (give them to -p), or else how
// many UDP datagrams on which ports.
func (s *streams) unmatched(name string, u *dissect.Unmatched, ports []uint16) {
	gamePorts := plural(len(ports), "port", "ports") + " " + portList(ports)
	if found := u.BCPorts; len(found) > 0 {
		ps := portList(found)
		s.noteOnce("bcdump: %s: nothing on the game %s, but UDP %s %s carries BC traffic: add -p %s (or -p auto)",
			sourceName(name), gamePorts, plural(len(found), "port", "ports"), ps, strings.ReplaceAll(ps, ",", " -p "))
		return
	}
	s.noteOnce("bcdump: %s: %s", sourceName(name), seen(u, gamePorts))
}

// seen says what a capture without game traffic held.
func seen(u *dissect.Unmatched, gamePorts string) string {
	st := u.Stats
	if st.UDP == 0 {
		if st.Frames == 0 {
			return "no packets"
		}
		return fmt.Sprintf("%d %s, no UDP datagrams", st.Frames, plural(st.Frames, "frame", "frames"))
	}
	msg := fmt.Sprintf("%d UDP %s, none on %s", st.UDP, plural(st.UDP, "datagram", "datagrams"), gamePorts)
	if len(u.ByPort) > 0 {
		msg += "; other ports: " + topPorts(u.ByPort, 5)
	}
	switch {
	case !u.Searched: // -p auto said what it found
	case u.Examined >= st.OtherPort:
		msg += "; none of them carries BC traffic"
	default:
		msg += "; try -p auto"
	}
	return msg
}

// topPorts lists the n ports with the most datagrams, "53 (20), 5353 (3)",
// and how many more there are.
func topPorts(byPort map[uint16]int, n int) string {
	ports := slices.Collect(maps.Keys(byPort))
	slices.SortFunc(ports, func(a, b uint16) int {
		if c := cmp.Compare(byPort[b], byPort[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var b strings.Builder
	for i, p := range ports[:min(n, len(ports))] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d (%d)", p, byPort[p])
	}
	if len(ports) > n {
		fmt.Fprintf(&b, " and %d more", len(ports)-n)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
