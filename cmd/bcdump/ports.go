package main

import (
	"fmt"
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

// otherPorts looks for BC traffic on other UDP ports while a capture is
// decoded, as long as nothing has been seen on the game ports (and for at
// most maxOtherPorts datagrams): for the hint when nothing is found.
type otherPorts struct {
	r   *capture.Reader
	pf  *dissect.PortFinder
	fed int
}

// maxOtherPorts bounds the datagrams on other ports otherPorts examines.
const maxOtherPorts = 20000

func (o *otherPorts) start(r *capture.Reader, plain bool) {
	o.r, o.pf = r, dissect.NewPortFinder(plain)
}

func (o *otherPorts) add(p *capture.Packet) {
	if o.pf == nil || o.fed >= maxOtherPorts || o.r.Stats().Matched > 0 {
		return
	}
	o.fed++
	o.pf.Add(p)
}

// hint prints, when the capture had nothing on the game ports but UDP on
// others that frames as BC, which ports to give -p.
func (o *otherPorts) hint(s *streams, name string, r *capture.Reader, ports []uint16) {
	if r.Stats().Matched > 0 || o.pf == nil {
		return
	}
	found := o.pf.Ports(ports)
	if len(found) == 0 {
		return
	}
	ps := portList(found)
	s.noteOnce("bcdump: %s: nothing on the game %s %s, but UDP %s %s carries BC traffic: add -p %s (or -p auto)",
		sourceName(name), plural(len(ports), "port", "ports"), portList(ports),
		plural(len(found), "port", "ports"), ps, strings.ReplaceAll(ps, ",", " -p "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
