package replicate

import (
	"bytes"
	"io"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

const sample = "../../../testdata/sample.pcap"

// load reads the capture at path and loads it for replicating.
func load(t *testing.T, path string) ([]byte, *Source) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Load(bytes.NewReader(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw, src
}

// writeRead writes src with opt and reads back the source (raw) and the
// result, which must hold Copies times the source's frames.
func writeRead(t *testing.T, raw []byte, src *Source, opt Options) (orig, got []capture.Packet) {
	t.Helper()
	var out bytes.Buffer
	if err := src.Write(&out, opt); err != nil {
		t.Fatal(err)
	}
	orig, got = readAll(t, raw), readAll(t, out.Bytes())
	if len(got) != opt.Copies*len(orig) {
		t.Fatalf("%d frames, want %d", len(got), opt.Copies*len(orig))
	}
	return orig, got
}

func TestWrite(t *testing.T) {
	raw, src := load(t, sample)
	for _, tt := range []struct {
		name string
		opt  Options
	}{
		{"fresh ports", Options{Copies: 3, Gap: 5 * time.Second}},
		{"kept ports", Options{Copies: 2, KeepPorts: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orig, got := writeRead(t, raw, src, tt.opt)
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
		// Data and Payload alias the reader's buffer until the next Next.
		p.Data = bytes.Clone(p.Data)
		p.Payload = p.Data[p.PayloadOffset : p.PayloadOffset+len(p.Payload)]
		out = append(out, p)
	}
}

// Overlapping copies with client addresses: every frame of every copy is
// there, in capture time order, each copy in source order; client c of
// copy k is at ClientAddr(k, c) with its source port; IPv4 header
// checksums are valid.
func TestWriteOverlapping(t *testing.T) {
	for _, tt := range []struct {
		name string
		path string
		opt  Options
	}{
		{"sample, 5 copies in 2 s", sample, Options{Copies: 5, Spread: 2 * time.Second, ClientAddrs: true}},
		{"session 3, 4 copies in 10 s", "../../../testdata/captures/openbc-session-3.pcap", Options{Copies: 4, Spread: 10 * time.Second, ClientAddrs: true}},
		{"sample, 3 copies in 3 ms, fresh ports", sample, Options{Copies: 3, Spread: 3 * time.Millisecond}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, src := load(t, tt.path)
			orig, got := writeRead(t, raw, src, tt.opt)
			// Which copy a frame belongs to: by client address, or by the
			// order frames of the same source index come in (ties go in copy
			// order, and later copies start later).
			next := make([]int, tt.opt.Copies) // next source frame of each copy
			for i, p := range got {
				if i > 0 && p.Time.Before(got[i-1].Time) {
					t.Fatalf("frame %d goes back in time", i+1)
				}
				k := -1
				for c := range next {
					if next[c] < len(orig) && bytes.Equal(orig[next[c]].Payload, p.Payload) && orig[next[c]].Kind == p.Kind &&
						p.Time.Sub(orig[next[c]].Time) == src.startOf(tt.opt, c) {
						k = c
						break
					}
				}
				if k < 0 {
					t.Fatalf("frame %d matches the next frame of no copy", i+1)
				}
				o := orig[next[k]]
				next[k]++
				if !tt.opt.ClientAddrs || o.Kind != capture.KindMatched {
					continue
				}
				clientSrc := o.Dst.Port() == capture.DefaultPort
				oc, pc := o.Src, p.Src
				if !clientSrc {
					oc, pc = o.Dst, p.Dst
				}
				want := netip.AddrPortFrom(src.ClientAddr(k, src.clients[oc.Port()], true), oc.Port())
				if pc != want {
					t.Fatalf("frame %d (copy %d): client %s, want %s", i+1, k, pc, want)
				}
				if ip := p.PayloadOffset - 28; p.Data[ip] != 0x45 || ipv4Sum(p.Data[ip:ip+20]) != 0xffff {
					t.Fatalf("frame %d: bad IPv4 header checksum", i+1)
				}
			}
		})
	}
}

func (s *Source) startOf(opt Options, k int) time.Duration {
	return (&writer{opt: opt}).start(k)
}

// ipv4Sum is the ones' complement sum of an IPv4 header (0xffff when valid).
func ipv4Sum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}
