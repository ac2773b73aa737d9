package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// annotations collect what read -w writes: the frames of the datagrams
// shown, and bcdump's findings by frame (the datagrams' anomalies and the
// events that point at a frame, whether or not the filter selected the
// event: a comment says everything bcdump found about its frame).
type annotations struct {
	selected []bool // by frame
	notes    map[int][]string
}

func newAnnotations() *annotations { return &annotations{notes: map[int][]string{}} }

// shown is the Select's OnShow: d's frame is written, and the frames of
// all its IP fragments when it was fragmented.
func (a *annotations) shown(d *dissect.Datagram, _ bool) {
	a.selectFrame(d.Frame)
	for _, f := range d.IPFrames {
		a.selectFrame(f)
	}
}

func (a *annotations) selectFrame(frame int) {
	for len(a.selected) <= frame {
		a.selected = append(a.selected, false)
	}
	a.selected[frame] = true
}

func (a *annotations) isSelected(frame int) bool {
	return frame >= 0 && frame < len(a.selected) && a.selected[frame]
}

// comment is one finding as a packet comment: `bcdump: error
// unacked-fragment-retransmit: message`.
func comment(an *anomaly.Anomaly) string {
	return "bcdump: " + an.Severity().String() + " " + an.Code.String() + ": " + an.Message()
}

func (a *annotations) Datagram(d *dissect.Datagram) error {
	for i := range d.Anomalies {
		a.notes[d.Frame] = append(a.notes[d.Frame], comment(&d.Anomalies[i]))
	}
	return nil
}

func (a *annotations) Events(ev []dissect.Event) error {
	for i := range ev {
		if e := &ev[i]; e.Frame > 0 {
			a.notes[e.Frame] = append(a.notes[e.Frame], comment(&e.Anomaly))
		}
	}
	return nil
}

func (a *annotations) Finish(end []dissect.Event) error { return a.Events(end) }

// writeAnnotated copies the selected frames of capture name to out
// (pcapng; "-" is stdout) with their comments, under the rules of package
// outfile.
func writeAnnotated(s *streams, name, source, out string, flt *filter.Filter, ports []uint16, a *annotations) error {
	r, err := capture.Open(name, capture.Options{Ports: ports, AllFrames: true})
	if err != nil {
		return err
	}
	defer r.Close()
	shb := "bcdump read " + source
	if flt != nil {
		shb += " -Y '" + flt.String() + "'"
	} else {
		shb += " (every datagram, annotated)"
	}
	if out == "-" {
		bw := bufio.NewWriterSize(s.out, 64<<10)
		if err := copyFrames(bw, r, shb, a); err != nil {
			return err
		}
		return bw.Flush()
	}
	inputs := []string{name} // the capture, or stdin's copy
	if source == "stdin" {
		inputs = append(inputs, "-")
	}
	f, err := outfile.Create(out, s.outputRules(inputs...))
	if err != nil {
		return fmt.Errorf("-w: %w", err)
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := copyFrames(bw, r, shb, a); err != nil {
		return fmt.Errorf("-w %s: %w", out, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("-w %s: %w", out, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("-w %s: %w", out, err)
	}
	return nil
}

// plainCopySHB is the section comment shb of a copy of a deciphered
// capture: it carries the mark that tells readers the copy is plaintext.
func plainCopySHB(shb string) string {
	return capture.PlainMarkPcapng + ": a copy of a capture deciphered by bcdump decrypt -w\n" + shb
}

// copyFrames writes the selected frames of r to w.
func copyFrames(w io.Writer, r *capture.Reader, shb string, a *annotations) error {
	if r.Plaintext() { // the copy is plaintext too
		shb = plainCopySHB(shb)
	}
	return writeFrames(w, r, shb, func(p *capture.Packet) (bool, []string) {
		return a.isSelected(p.Frame), a.notes[p.Frame]
	})
}

// writeFrames writes frames of r to w as pcapng under the section comment
// shb: each says whether a frame is written, and with which comments.
// pcapng comments must be UTF-8, and they reach whoever reads the file
// (tshark prints them as they are): every comment is written as package
// quote escapes text, so a trace's tags, a file name or a player name in
// a finding carry no control, bidi override or invalid byte into it.
func writeFrames(w io.Writer, r *capture.Reader, shb string, each func(p *capture.Packet) (bool, []string)) error {
	cw, err := capture.NewAnnotatedWriter(w, r, quote.EscapeLines(shb))
	if err != nil {
		return err
	}
	var escaped []string
	var p capture.Packet
	for {
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		keep, comments := each(&p)
		if !keep {
			continue
		}
		if len(comments) > 0 {
			escaped = escaped[:0]
			for _, c := range comments {
				escaped = append(escaped, quote.Escape(c)) // c itself when it is safe
			}
			comments = escaped
		}
		if err := cw.WriteComments(&p, comments); err != nil {
			return err
		}
	}
	return cw.Flush()
}
