package replicate

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

const sample = "../../../testdata/sample.pcap"

func TestWrite(t *testing.T) {
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Load(bytes.NewReader(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opt  Options
	}{
		{"fresh ports", Options{Copies: 3, Gap: 5 * time.Second}},
		{"kept ports", Options{Copies: 2, KeepPorts: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := src.Write(&out, tt.opt); err != nil {
				t.Fatal(err)
			}
			orig := readAll(t, raw)
			got := readAll(t, out.Bytes())
			if len(got) != tt.opt.Copies*len(orig) {
				t.Fatalf("%d frames, want %d", len(got), tt.opt.Copies*len(orig))
			}
			seen := map[uint16]int{} // client port -> copy
			for i, p := range got {
				o := orig[i%len(orig)]
				k := i / len(orig)
				if !bytes.Equal(p.Payload, o.Payload) || p.Kind != o.Kind {
					t.Fatalf("frame %d: payload or kind differs from the source", i+1)
				}
				if i > 0 && p.Time.Before(got[i-1].Time) {
					t.Fatalf("frame %d goes back in time", i+1)
				}
				client, oc := p.Src.Port(), o.Src.Port()
				if p.Dst.Port() != capture.DefaultPort {
					client, oc = p.Dst.Port(), o.Dst.Port()
				}
				if tt.opt.KeepPorts {
					if client != oc {
						t.Fatalf("frame %d: port %d changed to %d", i+1, oc, client)
					}
					continue
				}
				if c, ok := seen[client]; ok && c != k {
					t.Fatalf("frame %d: client port %d of copy %d reused from copy %d", i+1, client, k, c)
				}
				seen[client] = k
			}
		})
	}
}

func readAll(t *testing.T, b []byte) []capture.Packet {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(b), "t", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []capture.Packet
	for {
		var p capture.Packet
		err := r.Next(&p)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Payload = bytes.Clone(p.Payload)
		out = append(out, p)
	}
}
