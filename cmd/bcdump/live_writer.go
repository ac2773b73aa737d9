package main

import (
	"fmt"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect/capture"
)

// liveWriter is the -w file of bcdump live: pcapng, written under the
// rules of package outfile and renamed into place when live stops. It is
// flushed on every tick, so a capture killed hard (SIGKILL) still leaves a
// readable temporary file (.NAME.*.tmp) beside NAME. It is
// the Session's source, in front of the live capture: every frame the
// capture hands out is written, the game datagrams and the odd first IP
// fragment alike, before the Session sees it.
type liveWriter struct {
	src  capture.Source
	name string
	f    *outfile.File
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
	// live stops on SIGINT and SIGTERM itself and then commits.
	f, err := outfile.Create(name, outfile.Options{OwnSignals: true})
	if err != nil {
		return nil, fmt.Errorf("-w: %w", err)
	}
	w, err := capture.NewWriter(f, "pcapng", src.LinkType())
	if err != nil {
		f.Abort()
		return nil, err
	}
	return &liveWriter{src: src, name: name, f: f, w: w}, nil
}

func (l *liveWriter) fail(err error) error { return fmt.Errorf("-w %s: %w", l.name, err) }

func (l *liveWriter) close() error {
	if err := l.w.Flush(); err != nil {
		l.f.Abort()
		return l.fail(err)
	}
	if err := l.f.Commit(); err != nil {
		return l.fail(err)
	}
	return nil
}
