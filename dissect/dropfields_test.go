package dissect_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport"
)

// digest records what a counting sink sees of each datagram: opcodes,
// whether and how each payload decoded, and every anomaly with its text.
type digest struct {
	blind bool
	out   bytes.Buffer
	// fields counts the game payload fields stored (a blind run must store
	// none).
	fields int
}

func (d *digest) FieldBlind() bool { return d.blind }

func (d *digest) payload(p *dissect.Payload) {
	if p.Opcode != nil {
		fmt.Fprintf(&d.out, " %s", p.Opcode.Name)
	}
	fmt.Fprintf(&d.out, " decoded=%v", p.Decoded)
	if p.Malformed != nil {
		fmt.Fprintf(&d.out, " malformed=%q", p.Malformed.Error())
	}
	d.fields += len(p.Fields.List)
}

func (d *digest) Datagram(dg *dissect.Datagram) error {
	fmt.Fprintf(&d.out, "%d %s %s", dg.Frame, dg.Kind, dg.Dir)
	for i := range dg.Msgs {
		m := &dg.Msgs[i]
		if i < len(dg.Transport.Messages) && dg.Transport.Messages[i].Type != transport.TypeData {
			continue // control messages keep their fields either way
		}
		d.payload(&m.Payload)
		if r := m.Reassembled; r != nil {
			fmt.Fprintf(&d.out, " reassembled:")
			d.payload(&r.Payload)
		}
	}
	for _, a := range dg.Anomalies {
		fmt.Fprintf(&d.out, "\n  %s %s", a.Code, a.Message())
	}
	d.out.WriteByte('\n')
	return nil
}

func (d *digest) Events(ev []dissect.Event) error { return nil }

func (d *digest) Finish(end []dissect.Event) error {
	for _, e := range end {
		fmt.Fprintf(&d.out, "end %d %s %s\n", e.Frame, e.Code, e.Message())
	}
	return nil
}

// A sink that reads no fields lets the Session drop them: every payload
// still decodes and fails exactly as when its fields are kept (same
// opcodes, same malformed reasons, same anomalies and events), in every
// mode, and no field of a game payload is stored.
func TestDropFieldsFlagsTheSame(t *testing.T) {
	paths := []string{filepath.Join(testdata, "sample.pcap")}
	for _, c := range []string{"stock-excerpts", "openbc-session-2", "openbc-session-3"} {
		paths = append(paths, filepath.Join(testdata, "captures", c+".pcap"))
	}
	run := func(t *testing.T, path string, m runMode, blind bool) *digest {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		d := &digest{blind: blind}
		if err := dissect.NewSession(m.opt).Run(context.Background(), r, d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := run(t, path, runModes[0], false)
			if want.fields == 0 {
				t.Fatal("the sighted run stored no fields: the comparison shows nothing")
			}
			for _, m := range runModes {
				got := run(t, path, m, true)
				if got.fields != 0 {
					t.Errorf("%s: %d fields stored for a blind sink", m.name, got.fields)
				}
				if !bytes.Equal(got.out.Bytes(), want.out.Bytes()) {
					t.Errorf("%s: a blind sink sees other decodes than a sighted one:\n%s", m.name, firstDiff(strings.Split(got.out.String(), "\n"), strings.Split(want.out.String(), "\n")))
				}
			}
		})
	}
}
