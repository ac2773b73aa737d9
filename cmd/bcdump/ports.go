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
	r, err := capture.Open(path, capture.Options{Ports: opt.Ports, AllFrames: true})
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

// nothingFound prints a hint when a capture had no datagram on the game
// ports but UDP on others that frames as BC: which ports to give -p.
func nothingFound(s *streams, name string, r *capture.Reader, opt dissect.Options) {
	st := r.Stats()
	if st.Matched > 0 || st.OtherPort == 0 {
		return
	}
	game := plural(len(opt.Ports), "port", "ports") + " " + portList(opt.Ports)
	if name == "-" {
		s.noteOnce("bcdump: stdin: nothing on the game %s, but %d UDP datagrams on other ports: -p auto looks for BC traffic among them",
			game, st.OtherPort)
		return
	}
	found, err := findPorts(name, opt)
	if err != nil || len(found) == 0 {
		return
	}
	ps := portList(found)
	s.noteOnce("bcdump: %s: nothing on the game %s, but UDP %s %s carries BC traffic: add -p %s (or -p auto)",
		name, game, plural(len(found), "port", "ports"), ps, strings.ReplaceAll(ps, ",", " -p "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
