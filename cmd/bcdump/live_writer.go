package main

import (
	"fmt"
	"os"

	"github.com/bcdump/bcdump/dissect/capture"
)

// liveWriter is the -w file of bcdump live: pcapng, flushed on every
// tick so that a capture killed hard still leaves a readable file. It is
// the Session's source, in front of the live capture: every frame the
// capture hands out is written, the game datagrams and the odd first IP
// fragment alike, before the Session sees it.
type liveWriter struct {
	src  capture.Source
	name string
	f    *os.File
	w    *capture.Writer
}

func (l *liveWriter) Next(p *capture.Packet) error {
	err := l.src.Next(p)
	switch err {
	case nil:
		if err := l.w.WritePacket(p.CaptureInfo, p.Data); err != nil {
			return l.fail(err)
		}
	case capture.ErrNoPacket:
		if err := l.w.Flush(); err != nil {
			return l.fail(err)
		}
	}
	return err
}

func openLiveWriter(name string, src *capture.Live) (*liveWriter, error) {
	if name == "" {
		return nil, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	w, err := capture.NewWriter(f, "pcapng", src.LinkType())
	if err != nil {
		f.Close()
		return nil, err
	}
	return &liveWriter{src: src, name: name, f: f, w: w}, nil
}

func (l *liveWriter) fail(err error) error { return fmt.Errorf("-w %s: %w", l.name, err) }

func (l *liveWriter) close() error {
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return l.fail(err)
	}
	return nil
}
