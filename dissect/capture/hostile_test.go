package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// Hostile and broken inputs: each must end in the expected error (or EOF),
// never panic, and allocate no more than a few MiB whatever lengths the
// file claims.
func TestHostileInputs(t *testing.T) {
	le := binary.LittleEndian
	good := eth(0x0800, ipUDP(t, cli4, srv4, bcPl))
	pcapHdr := func(snap uint32) []byte {
		h := pcapFile(t, 1, false, false, nil)
		le.PutUint32(h[16:20], snap)
		return h
	}
	pcapRec := func(caplen, orig uint32, data []byte) []byte {
		b := le.AppendUint32(nil, 1700000000)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, caplen)
		b = le.AppendUint32(b, orig)
		return append(b, data...)
	}
	ng := func(build func(n *ngb)) []byte {
		n := &ngb{o: le}
		build(n)
		return n.b
	}
	// patch overwrites 4 bytes at off from the end of b (little-endian).
	patch := func(b []byte, offFromEnd int, v uint32) []byte {
		b = bytes.Clone(b)
		le.PutUint32(b[len(b)-offFromEnd:], v)
		return b
	}
	withGood := func(n *ngb) { n.shb().idb(1, 0).epb(0, 1, good, 0) }
	ngGood := ng(withGood)
	epbLen := len(ng(func(n *ngb) { n.epb(0, 1, good, 0) }))

	tests := []struct {
		name    string
		file    []byte
		openErr string // substring of the Open error, if Open must fail
		frames  int    // packets before the error
		err     string // substring of the Next error; "" means io.EOF
	}{
		{name: "zero-length", file: nil, openErr: "not a pcap or pcapng file"},
		{name: "pcap/partial-header", file: pcapHdr(65535)[:10], openErr: "truncated pcap file header"},
		{name: "pcap/bad-version", file: patch(pcapHdr(65535), 20, 0x00070007), openErr: "bad pcap file header"},
		{name: "pcap/header-only", file: pcapHdr(65535)},
		{name: "pcap/huge-caplen", file: append(pcapHdr(65535), pcapRec(0xFFFFFFF0, 0xFFFFFFF0, good)...),
			err: "frame 1: record length 4294967280 exceeds the 262144 byte limit"},
		{name: "pcap/huge-snaplen-and-caplen", file: append(pcapHdr(0xFFFFFFFF), pcapRec(1<<30, 1<<30, good)...),
			err: "frame 1: record length 1073741824 exceeds"},
		{name: "pcap/caplen-one-over-limit", file: append(pcapHdr(0), pcapRec(MaxFrameLen+1, MaxFrameLen+1, nil)...),
			err: "exceeds the 262144 byte limit"},
		{name: "pcap/caplen-at-limit-but-missing", file: append(pcapHdr(0), pcapRec(MaxFrameLen, MaxFrameLen, good)...),
			err: "frame 1: truncated record"},
		{name: "pcap/caplen-above-orig", file: append(pcapHdr(65535), pcapRec(uint32(len(good)), 10, good)...),
			frames: 1}, // read as Wireshark reads it; see TestCaplenAboveLen
		{name: "pcap/caplen-above-orig-and-limit", file: append(pcapHdr(65535), pcapRec(MaxFrameLen+1, 10, good)...),
			err: "exceeds the 262144 byte limit"},
		{name: "pcap/snaplen-cut-frames", file: append(append(pcapHdr(40), pcapRec(40, uint32(len(good)), good[:40])...), pcapRec(40, 500, good[:40])...),
			frames: 2},
		{name: "pcap/gzip-garbage-after-magic", file: []byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff, 0xde, 0xad, 0xbe, 0xef}, openErr: "capture.pcap:"},

		{name: "pcapng/shb-only", file: ng(func(n *ngb) { n.shb() })},
		{name: "pcapng/shb-bad-byte-order", file: patch(ng(func(n *ngb) { n.shb() }), 20, 0x11223344), openErr: "byte-order magic"},
		{name: "pcapng/shb-length-too-small", file: patch(ng(func(n *ngb) { n.shb() })[:12], 8, 12), openErr: "below the minimum 28"},
		{name: "pcapng/shb-unknown-version", file: patch(ng(func(n *ngb) { n.shb() }), 16, 0x00000002), openErr: "bad pcapng file header"},
		{name: "pcapng/epb-length-too-small", file: patch(ngGood, epbLen-4, 8), err: "frame 1: pcapng block type 0x6: length 8 below the minimum 32"},
		{name: "pcapng/epb-length-huge", file: patch(ngGood, epbLen-4, 0xFFFFFFF0), err: "frame 1: pcapng block type 0x6: length 4294967280 exceeds"},
		{name: "pcapng/epb-length-not-multiple-of-4", file: patch(ngGood, epbLen-4, uint32(epbLen+2)), err: "not a multiple of 4"},
		{name: "pcapng/epb-length-longer-than-file", file: patch(ngGood, epbLen-4, uint32(epbLen+64)), err: "frame 1: truncated record"},
		{name: "pcapng/epb-trailer-mismatch", file: patch(ngGood, 4, 99), err: "does not match trailing length 99"},
		{name: "pcapng/epb-caplen-beyond-block", file: patch(ngGood, epbLen-20, 4000), err: "packet length 4000 does not fit"},
		{name: "pcapng/epb-caplen-huge", file: patch(ngGood, epbLen-20, 0xFFFFFFFF), err: "exceeds the 262144 byte limit"},
		{name: "pcapng/epb-unknown-interface", file: ng(func(n *ngb) { n.shb().idb(1, 0).epb(5, 1, good, 0) }), err: "frame 1: Interface id 5 not present"},
		{name: "pcapng/epb-option-overrun-ignored", file: ng(func(n *ngb) { n.shb().idb(1, 0).epb(0, 1, good, 0, n.opt(1, make([]byte, 400))[:12]) }),
			frames: 1},
		{name: "pcapng/idb-option-overrun", file: ng(func(n *ngb) { n.shb().idb(1, 0, le.AppendUint16(le.AppendUint16(nil, 2), 200)) }),
			err: "option 2 of length 200 overruns the block"},
		{name: "pcapng/idb-too-big", file: ng(func(n *ngb) { n.shb().idb(1, 0, n.opt(3, make([]byte, 20000))) }), err: "exceeds the 16384 byte limit"},
		{name: "pcapng/idb-tsresol-too-high", file: ng(func(n *ngb) { n.shb().idb(1, 0, n.opt(9, []byte{0x7f})).epb(0, 1, good, 0) }),
			err: "Timestamp resolution 10^-127 is too high"},
		{name: "pcapng/idb-tsresol-binary-ok", file: ng(func(n *ngb) { n.shb().idb(1, 0, n.opt(9, []byte{0x80 | 20})).epb(0, 1<<20+1<<19, good, 0) }),
			frames: 1},
		{name: "pcapng/too-many-interfaces", file: ng(func(n *ngb) {
			n.shb()
			for range maxInterfaces + 1 {
				n.idb(1, 0)
			}
		}), err: "more than 1024 interfaces in one pcapng section: bcdump reads at most 1024 per section"},
		{name: "pcapng/spb-before-interface", file: ng(func(n *ngb) { n.shb().spb(good, 0) }), err: "simple packet block before any interface"},
		{name: "pcapng/spb-longer-than-block", file: patch(ng(func(n *ngb) { n.shb().idb(1, 0).spb(good, 0) }), pad4(len(good))+8, 5000),
			err: "does not fit in block"},
		{name: "pcapng/spb-cut-by-snaplen", file: ng(func(n *ngb) { n.shb().idb(1, 40).spb(good[:40], len(good)) }), frames: 1},
		{name: "pcapng/second-section-bad-version", file: append(bytes.Clone(ngGood), patch(ng(func(n *ngb) { n.shb() }), 16, 2)...),
			frames: 1, err: "frame 2: Unknown"},
		{name: "pcapng/dropped-block-claims-16MiB", file: le.AppendUint32(le.AppendUint32(bytes.Clone(ngGood), 0xBAD), maxBlockLen),
			frames: 1, err: "frame 2: truncated record"},
		{name: "pcapng/dropped-block-lies-about-length", file: append(patch(ng(func(n *ngb) { n.shb().block(0xBAD, make([]byte, 20)) }), 28, 1<<24),
			ngGood[28:]...), err: "frame 1: truncated record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := NewReader(bytes.NewReader(tc.file), "capture.pcap", Options{AllFrames: true})
			if tc.openErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.openErr) {
					t.Fatalf("Open error %v, want %q", err, tc.openErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got, err := readAll(t, r)
			runtime.ReadMemStats(&after)
			if len(got) != tc.frames {
				t.Errorf("%d packets before the error, want %d", len(got), tc.frames)
			}
			if tc.err == "" {
				if err != io.EOF {
					t.Fatalf("error %v, want EOF", err)
				}
			} else {
				var fe *FrameError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "capture.pcap: frame ") {
					t.Fatalf("error %v, want FrameError containing %q", err, tc.err)
				}
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
				t.Errorf("allocated %d bytes", n)
			}
		})
	}
}

// Frames cut by the snap length come back with Truncated set and the bytes
// that were captured.
func TestSnaplenCut(t *testing.T) {
	full := eth(0x0800, ipUDP(t, cli4, srv4, make([]byte, 200)))
	fs := []frame{{ts: t0, data: full[:100], orig: len(full)}, {ts: t0, data: full}}
	r := openBytes(t, pcapFile(t, 1, false, false, fs), Options{})
	got, err := readAll(t, r)
	if err != io.EOF || len(got) != 2 {
		t.Fatalf("%d packets, %v", len(got), err)
	}
	if !got[0].Truncated || len(got[0].Payload) != 100-42 || got[1].Truncated || len(got[1].Payload) != 200 {
		t.Errorf("truncated %v/%v, payload %d/%d", got[0].Truncated, got[1].Truncated, len(got[0].Payload), len(got[1].Payload))
	}
	if s := r.Stats(); s.Matched != 2 || s.Truncated != 1 {
		t.Errorf("stats %+v", s)
	}
}
