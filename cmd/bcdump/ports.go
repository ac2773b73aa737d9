package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

// findPorts reads the capture at path once, every frame, for BC traffic on
// UDP ports other than the game ports (dissect.PortFinder).
func findPorts(path string, opt dissect.Options) ([]uint16, error) {
	r, err := capture.Open(path, capture.Options{Ports: opt.Ports, AllFrames: true, Trace: opt.Trace})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	pf := dissect.NewPortFinder(opt.Plain || r.Plaintext())
	var p capture.Packet
	for r.Next(&p) == nil {
		if p.Kind == capture.KindOtherPort {
			pf.Add(&p)
		}
	}
	return pf.Ports(opt.Ports), nil
}

// autoPorts is -p auto for one capture: it adds the game ports found in
// it to opt and says which on stderr. stdin is kept in a file for the
// extra pass; the streams returned read it from there (cleanup removes it).
func autoPorts(s *streams, name string, opt dissect.Options) (dissect.Options, *streams, func(), error) {
	local, cleanup, err := spoolStdin(s, name)
	if err != nil {
		return opt, s, nil, &inputError{err}
	}
	if name == "-" {
		f, err := os.Open(local)
		if err != nil {
			cleanup()
			return opt, s, nil, &inputError{err}
		}
		s2 := *s
		s2.in = f
		s = &s2
		rm := cleanup
		cleanup = func() { f.Close(); rm() }
	}
	found, err := findPorts(local, opt)
	if err != nil {
		cleanup()
		if name == "-" {
			err = fmt.Errorf("stdin: %w", err) // not the spool file's name
		}
		return opt, s, nil, &inputError{err}
	}
	if len(found) == 0 {
		s.noteOnce("bcdump: %s: -p auto: no BC traffic on other UDP ports", sourceName(name))
	} else {
		s.noteOnce("bcdump: %s: -p auto: BC traffic on UDP %s %s", sourceName(name), plural(len(found), "port", "ports"), portList(found))
		opt.Ports = append(slices.Clone(opt.Ports), found...)
	}
	return opt, s, cleanup, nil
}

// otherPorts watches the UDP on other ports while nothing has been seen on
// the game ports: it counts the datagrams by port, and (without -p auto)
// looks for BC traffic among the first maxOtherPorts of them, for the note
// a capture without game traffic ends with.
type otherPorts struct {
	r      *capture.Reader
	pf     *dissect.PortFinder // nil with -p auto, which looked already
	fed    int
	byPort map[uint16]int // by the lower of the two ports (the service's, mostly)
}

// maxOtherPorts bounds the datagrams on other ports otherPorts examines.
const maxOtherPorts = 20000

// maxPortsCounted bounds the ports otherPorts counts separately.
const maxPortsCounted = 1024

func (o *otherPorts) start(r *capture.Reader, plain, find bool) {
	o.r = r
	if find {
		o.pf = dissect.NewPortFinder(plain)
	}
}

func (o *otherPorts) add(p *capture.Packet) {
	if o.r == nil || o.r.Stats().Matched > 0 {
		return
	}
	port := min(p.Src.Port(), p.Dst.Port())
	if o.byPort == nil {
		o.byPort = map[uint16]int{}
	}
	if _, ok := o.byPort[port]; ok || len(o.byPort) < maxPortsCounted {
		o.byPort[port]++
	}
	if o.pf == nil || o.fed >= maxOtherPorts {
		return
	}
	o.fed++
	o.pf.Add(p)
}

// hint prints, when the capture had nothing on the game ports, what it
// had: which other UDP ports frame as BC (give them to -p), or else how
// many UDP datagrams on which ports.
func (o *otherPorts) hint(s *streams, name string, r *capture.Reader, ports []uint16) {
	st := r.Stats()
	if st.Matched > 0 {
		return
	}
	gamePorts := plural(len(ports), "port", "ports") + " " + portList(ports)
	if o.pf != nil {
		if found := o.pf.Ports(ports); len(found) > 0 {
			ps := portList(found)
			s.noteOnce("bcdump: %s: nothing on the game %s, but UDP %s %s carries BC traffic: add -p %s (or -p auto)",
				sourceName(name), gamePorts, plural(len(found), "port", "ports"), ps, strings.ReplaceAll(ps, ",", " -p "))
			return
		}
	}
	s.noteOnce("bcdump: %s: %s", sourceName(name), o.seen(st, gamePorts))
}

// seen says what a capture without game traffic held.
func (o *otherPorts) seen(st capture.Stats, gamePorts string) string {
	if st.UDP == 0 {
		if st.Frames == 0 {
			return "no packets"
		}
		return fmt.Sprintf("%d %s, no UDP datagrams", st.Frames, plural(st.Frames, "frame", "frames"))
	}
	msg := fmt.Sprintf("%d UDP %s, none on %s", st.UDP, plural(st.UDP, "datagram", "datagrams"), gamePorts)
	if len(o.byPort) > 0 {
		msg += "; other ports: " + topPorts(o.byPort, 5)
	}
	switch {
	case o.pf == nil: // -p auto said what it found
	case o.fed >= st.OtherPort:
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

// noGameNote is the note of a capture without game traffic for commands
// that decode it elsewhere (diff): the file is read again to count what it
// holds; stdin cannot be, and gets the short form.
func noGameNote(s *streams, name string, opt dissect.Options) {
	gamePorts := plural(len(opt.Ports), "port", "ports") + " " + portList(opt.Ports)
	if name == "-" {
		s.noteOnce("bcdump: stdin: no datagrams on %s", gamePorts)
		return
	}
	others := &otherPorts{}
	r, err := capture.Open(name, capture.Options{Ports: opt.Ports, OtherPort: others.add})
	if err != nil {
		return // loading it worked: not worth a second error
	}
	defer r.Close()
	others.start(r, opt.Plain || r.Plaintext(), !opt.AutoPorts)
	var p capture.Packet
	for r.Next(&p) == nil {
	}
	others.hint(s, name, r, opt.Ports)
}
