package dissect_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
)

// frames records the frame numbers and message counts a Session hands out.
type frames struct {
	got  []int
	msgs int
}

func (f *frames) Datagram(dg *dissect.Datagram) error {
	f.got = append(f.got, dg.Frame)
	f.msgs += len(dg.Msgs)
	return nil
}
func (f *frames) Events([]dissect.Event) error { return nil }
func (f *frames) Finish([]dissect.Event) error { return nil }

// Dissect honours AutoPorts: a capture whose game port was moved decodes
// as the original does, from a file or from stdin, and PortsFound hears
// the port. Without AutoPorts nothing is decoded and Unmatched names it.
func TestDissectAutoPorts(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "testdata", "sample.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := pcapedit.Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	movedBytes := pcapedit.MovePort(f, 22101, 23000).Bytes()
	moved := filepath.Join(tempDir(t), "moved.pcap")
	if err := os.WriteFile(moved, movedBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	var want frames
	if _, err := dissect.Dissect(context.Background(), dissect.Input{Name: "-", Stdin: bytes.NewReader(orig)}, dissect.RunOptions{}, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.got) == 0 {
		t.Fatal("the sample decodes to nothing")
	}
	for _, c := range []struct {
		name string
		in   dissect.Input
	}{
		{"file", dissect.Input{Name: moved}},
		{"stdin", dissect.Input{Name: "-", Stdin: bytes.NewReader(movedBytes)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var found []uint16
			var got frames
			res, err := dissect.Dissect(context.Background(), c.in, dissect.RunOptions{
				Options:    dissect.Options{AutoPorts: true},
				PortsFound: func(_ string, p []uint16) { found = p },
			}, &got)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(found, []uint16{23000}) || !slices.Equal(res.Ports, []uint16{dissect.DefaultPort, 23000}) {
				t.Errorf("found %v, ports %v; want 23000 added", found, res.Ports)
			}
			if !slices.Equal(got.got, want.got) || got.msgs != want.msgs {
				t.Errorf("frames %v (%d messages), want %v (%d)", got.got, got.msgs, want.got, want.msgs)
			}
		})
	}
	var none frames
	res, err := dissect.Dissect(context.Background(), dissect.Input{Name: moved}, dissect.RunOptions{}, &none)
	if err != nil {
		t.Fatal(err)
	}
	if len(none.got) != 0 || res.Unmatched == nil || !slices.Equal(res.Unmatched.BCPorts, []uint16{23000}) || res.Unmatched.ByPort[2655] != 27 {
		t.Errorf("without AutoPorts: %d datagrams, unmatched %+v; want none, and 23000 named", len(none.got), res.Unmatched)
	}
}

// A missing input is an error before anything is opened.
func TestDissectMissing(t *testing.T) {
	res, err := dissect.Dissect(context.Background(), dissect.Input{Name: filepath.Join(tempDir(t), "none.pcap")}, dissect.RunOptions{}, &frames{})
	if err == nil || res.Opened || res.Session != nil {
		t.Errorf("err %v, opened %v", err, res.Opened)
	}
}

// Chain hands each datagram to every sink in order, and is a Renderer
// exactly when its last sink is one.
func TestChain(t *testing.T) {
	var order []string
	mk := func(name string) dissect.Sink {
		return dissect.SinkFuncs{OnDatagram: func(*dissect.Datagram) error { order = append(order, name); return nil }}
	}
	c := dissect.Chain(mk("a"), mk("b"), mk("c"))
	if err := c.Datagram(&dissect.Datagram{}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"a", "b", "c"}) {
		t.Errorf("order %v", order)
	}
	if _, ok := c.(dissect.Renderer); ok {
		t.Error("a chain of plain sinks is a Renderer")
	}
	if _, ok := dissect.Chain(mk("a"), renderer{}).(dissect.Renderer); !ok {
		t.Error("a chain ending in a Renderer is not one")
	}
}

type renderer struct{ dissect.SinkFuncs }

func (renderer) Order(*dissect.Datagram) (uint8, error)                   { return 1, nil }
func (renderer) NewRender() func([]byte, *dissect.Datagram, uint8) []byte { return nil }
func (renderer) Write([]byte) error                                       { return nil }
