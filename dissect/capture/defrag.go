package capture

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// IP reassembly of UDP datagrams split into fragments, IPv4 and IPv6 alike
// (one reassembler: gopacket's ip4defrag allocates per fragment, has no cap
// on pending datagrams or bytes, drops incomplete datagrams without saying
// which, and covers IPv4 only). Fragments are held per (addresses, IP id);
// the datagram is returned on the fragment that completes it, rebuilt as
// one raw IP packet. Limits, all by capture time and bytes held:
const (
	// DefragTimeout: a datagram still incomplete this long after its first
	// fragment is given up (Linux's default ipfrag_time).
	DefragTimeout = 30 * time.Second
	// DefragMaxPending datagrams are reassembled at once; the oldest is
	// given up to make room.
	DefragMaxPending = 64
	// DefragMaxBytes of fragment data are held at once, likewise.
	DefragMaxBytes = 1 << 20
	// defragMaxFrags bounds the fragments of one datagram (65535 bytes in
	// 8-byte pieces would be 8192; real ones have a few).
	defragMaxFrags = 128
	maxIPPayload   = 65535
	// maxNotes bounds the notes a Reader keeps until TakeNotes.
	maxNotes = 4096
)

// Note is an anomaly about the capture that belongs to no datagram the
// reader returned: a fragmented datagram given up before its first fragment
// was seen, so its ports and contents are unknown. Frame is the frame of the
// first fragment held.
type Note struct {
	Frame    int
	Time     time.Time
	Src, Dst netip.AddrPort // ports are 0 when unknown
	anomaly.Anomaly
}

type fragKey struct {
	src, dst netip.Addr
	id       uint32
	v6       bool
}

type span struct{ off, end int }

// pendingDgram is one datagram being reassembled.
type pendingDgram struct {
	key        fragKey
	first      time.Time // capture time of its first fragment
	frame      int       // frame of its first fragment
	last       int       // frame of the latest fragment
	lastTime   time.Time
	hdr        []byte // IP header (IPv6: fixed header only) of fragment 0
	buf        []byte // payload bytes by offset
	have       []span // received ranges, sorted and merged
	frags      int
	frames     []int // frames of the fragments held, in capture order
	total      int   // payload length, -1 until the last fragment is seen
	overlapped bool
	why        string // why it was given up
}

func (d *pendingDgram) complete() bool {
	return d.total >= 0 && d.hdr != nil && len(d.have) == 1 && d.have[0].off == 0 && d.have[0].end == d.total
}

// prefix is the payload received contiguously from offset 0.
func (d *pendingDgram) prefix() int {
	if len(d.have) == 0 || d.have[0].off != 0 {
		return 0
	}
	return d.have[0].end
}

func (d *pendingDgram) add(off int, data []byte) {
	end := off + len(data)
	if len(d.buf) < end {
		d.buf = append(d.buf, make([]byte, end-len(d.buf))...)
	}
	copy(d.buf[off:], data)
	d.frags++
	// Insert [off, end) and merge touching ranges.
	i := 0
	for i < len(d.have) && d.have[i].end < off {
		i++
	}
	j := i
	for j < len(d.have) && d.have[j].off <= end {
		if d.have[j].off < end && d.have[j].end > off {
			d.overlapped = true
		}
		off, end = min(off, d.have[j].off), max(end, d.have[j].end)
		j++
	}
	d.have = slices.Replace(d.have, i, j, span{off, end})
}

// defrag holds the pending datagrams of a Reader.
type defrag struct {
	pend  []*pendingDgram // oldest first
	bytes int
	pool  []*pendingDgram
	out   []byte // the reassembled packet handed out last
	// outCut holds the datagram given up handed out last: one apart, as a
	// reassembled datagram waits (Reader.held) while those given up before
	// it are returned.
	outCut []byte
	given  []*pendingDgram
	// framesOut and framesCut are the fragment frames of out and outCut
	// (Packet.FragFrames).
	framesOut, framesCut []int
}

func (f *defrag) find(k fragKey) int {
	for i, d := range f.pend {
		if d.key == k {
			return i
		}
	}
	return -1
}

// remove takes pending datagram i out (the caller gives it back with free).
func (f *defrag) remove(i int) *pendingDgram {
	d := f.pend[i]
	f.bytes -= cap(d.buf)
	f.pend = append(f.pend[:i], f.pend[i+1:]...)
	return d
}

func (f *defrag) free(d *pendingDgram) {
	if len(f.pool) < 8 && cap(d.buf) <= maxIPPayload {
		f.pool = append(f.pool, d)
	}
}

func (f *defrag) alloc(k fragKey, p *Packet) *pendingDgram {
	var d *pendingDgram
	if n := len(f.pool); n > 0 {
		d, f.pool = f.pool[n-1], f.pool[:n-1]
	} else {
		d = new(pendingDgram)
	}
	*d = pendingDgram{key: k, first: p.Time, frame: p.Frame, total: -1,
		hdr: d.hdr[:0], buf: d.buf[:0], have: d.have[:0], frames: d.frames[:0]}
	d.hdr = nil
	f.pend = append(f.pend, d)
	return d
}

// fragment is what the decoder found in a fragment frame.
type fragment struct {
	key  fragKey
	off  int
	more bool
	hdr  []byte // the IP header to rebuild the datagram with (fragment 0)
	data []byte
}

// fragmentOf extracts the fragment the decoder just parsed, if it is a
// fragment of a UDP datagram; other protocols are not reassembled.
func (d *decoder) fragmentOf() (fragment, bool) {
	n := len(d.decoded)
	if n == 0 {
		return fragment{}, false
	}
	switch d.decoded[n-1] {
	case layers.LayerTypeIPv4:
		ip := &d.ip4
		if ip.Protocol != layers.IPProtocolUDP {
			return fragment{}, false
		}
		return fragment{
			key:  fragKey{netip.AddrFrom4([4]byte(ip.SrcIP)), netip.AddrFrom4([4]byte(ip.DstIP)), uint32(ip.Id), false},
			off:  int(ip.FragOffset) * 8,
			more: ip.Flags&layers.IPv4MoreFragments != 0,
			hdr:  ip.Contents,
			data: ip.Payload,
		}, true
	case layers.LayerTypeIPv6Fragment:
		if d.frag.NextHeader != layers.IPProtocolUDP {
			return fragment{}, false
		}
		ip := &d.ip6
		return fragment{
			key:  fragKey{netip.AddrFrom16([16]byte(ip.SrcIP)), netip.AddrFrom16([16]byte(ip.DstIP)), d.frag.Identification, true},
			off:  int(d.frag.FragmentOffset) * 8,
			more: d.frag.MoreFragments,
			hdr:  ip.Contents,
			data: d.frag.Payload,
		}, true
	}
	return fragment{}, false
}

// add holds a fragment read in p. It returns the datagram it completed
// (the caller rebuilds and releases it), or nil.
func (f *defrag) add(p *Packet, fr fragment) *pendingDgram {
	end := fr.off + len(fr.data)
	if end > maxIPPayload || len(fr.data) == 0 && fr.more {
		return nil // cannot be part of a datagram: left as a lone fragment
	}
	i := f.find(fr.key)
	var d *pendingDgram
	if i >= 0 {
		d = f.pend[i]
	} else {
		d = f.alloc(fr.key, p)
	}
	if d.frags >= defragMaxFrags || !fr.more && d.total >= 0 && d.total != end || d.total >= 0 && end > d.total {
		d.overlapped = true // inconsistent: kept so the timeout reports it
		return nil
	}
	f.bytes -= cap(d.buf)
	d.add(fr.off, fr.data)
	f.bytes += cap(d.buf)
	if fr.off == 0 {
		d.hdr = append(d.hdr[:0], fr.hdr...)
	}
	if !fr.more {
		d.total = end
	}
	d.last, d.lastTime = p.Frame, p.Time
	d.frames = append(d.frames, p.Frame)
	if !d.complete() {
		return nil
	}
	return f.remove(f.find(fr.key))
}

// rebuild writes the first n payload bytes of d as one raw IP packet into
// f.out, or f.outCut for a datagram given up.
func (f *defrag) rebuild(d *pendingDgram, n int, given bool) []byte {
	out := &f.out
	if given {
		out = &f.outCut
	}
	b := append((*out)[:0], d.hdr...)
	if d.key.v6 {
		b[6] = byte(layers.IPProtocolUDP) // the fragment header is gone
		binary.BigEndian.PutUint16(b[4:], uint16(n))
	} else {
		binary.BigEndian.PutUint16(b[2:], uint16(len(d.hdr)+n))
		b[6], b[7] = 0, 0 // no more fragments, offset 0
		b[10], b[11] = 0, 0
		binary.BigEndian.PutUint16(b[10:], gopacket.FoldChecksum(gopacket.ComputeChecksum(b[:len(d.hdr)], 0)))
	}
	b = append(b, d.buf[:n]...)
	*out = b
	return b
}

// frameList copies the frames of d's fragments where the datagram rebuild
// put goes with them (see rebuild).
func (f *defrag) frameList(d *pendingDgram, given bool) []int {
	fs := &f.framesOut
	if given {
		fs = &f.framesCut
	}
	*fs = append((*fs)[:0], d.frames...)
	return *fs
}

// expire gives up the pending datagrams that are too old at now, or all of
// them (now zero), or the oldest ones while over the limits; they are
// queued in f.given.
func (f *defrag) expire(now time.Time) {
	for len(f.pend) > 0 {
		d := f.pend[0]
		switch {
		case now.IsZero():
			d.why = "at the end of the capture"
		case now.Sub(d.first) > DefragTimeout:
			d.why = fmt.Sprintf("after %s", DefragTimeout)
		case len(f.pend) > DefragMaxPending || f.bytes > DefragMaxBytes:
			d.why = fmt.Sprintf("to stay within %d pending datagrams / %d bytes", DefragMaxPending, DefragMaxBytes)
		default:
			return
		}
		f.given = append(f.given, f.remove(0))
	}
}

// sameHosts gives up the pending datagrams between src and dst (either
// way) that got no fragment since frame before, when a datagram between
// them sent later (read whole, or reassembled from fragments that started
// at frame before) shows their missing fragments are lost: the fragments
// of one datagram are sent back to back. It makes the lost datagram known
// before the traffic that follows it.
func (f *defrag) sameHosts(src, dst netip.Addr, before int, how string) {
	for i := 0; i < len(f.pend); {
		if k := f.pend[i].key; f.pend[i].last < before && (k.src == src && k.dst == dst || k.src == dst && k.dst == src) {
			f.pend[i].why = "(a later datagram between the same hosts " + how + ")"
			f.given = append(f.given, f.remove(i))
			continue
		}
		i++
	}
}

// incomplete describes a datagram given up.
func (d *pendingDgram) incomplete() string {
	var have, held string
	if d.total >= 0 {
		have = fmt.Sprintf("%d of its %d bytes", d.held(), d.total)
	} else {
		have = fmt.Sprintf("%d bytes, not its last fragment", d.held())
	}
	if d.hdr == nil {
		held = " and not its first fragment"
	}
	if d.overlapped {
		held += " (fragments overlapped or disagreed on its length)"
	}
	return fmt.Sprintf("IP datagram id %d from %s to %s incomplete %s: the capture holds %d fragments (frames %d-%d), %s%s",
		d.key.id, d.key.src, d.key.dst, d.why, d.frags, d.frame, d.last, have, held)
}

func (d *pendingDgram) held() int {
	n := 0
	for _, s := range d.have {
		n += s.end - s.off
	}
	return n
}
