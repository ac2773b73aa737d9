package transport

import (
	"encoding/hex"
	"fmt"
	"testing"
	"time"
)

// FuzzTrack feeds a sequence of arbitrary datagrams through Decode and Track
// with tiny limits, checking after every step that no state outgrows them.
//
// Input format, repeated: ctrl byte, length byte, that many datagram bytes.
// ctrl bit 0: direction (1 = s2c); bits 1-2: client (3 = IPv6 client on the
// IPv6 server); bits 3-7: time step, (v*v) x 100 ms (0 .. 96 s).
func FuzzTrack(f *testing.F) {
	for _, sc := range []trkScript{seed001Script(seed001FragAcks), seed001Script(seed001PlainAcks)} {
		var steps []trkStep
		steps = append(steps, sc.steps[:min(len(sc.steps), 12)]...)
		f.Add(trkFuzzEncode(steps))
	}
	for _, hx := range []string{
		"FF01030FC000000A0A0AEF5F0A00000000",                                     // stock Connect request (protocol-facts 4.1)
		"01020306C0000002321B80000020000800736372697074732F07004170702E70796320", // reply + ChecksumReq 0 (seed 003 #2)
		"0203050AC00200020A0A0AEF0127000001280000",                               // stock Disconnect + stale ACKs (protocol-facts 4.1)
		"010101020002", // the host's ACK for it
		"010301020001010102000102322180030020031000736372697074732F6D61696E6D656E7505002A2E70796320", // seed 003 #21
	} {
		b, _ := hex.DecodeString(hx)
		dir := C2S
		if b[0] == 1 {
			dir = S2C
		}
		f.Add(trkFuzzEncode([]trkStep{{dir: dir, dg: b}, {at: 50, dir: dir, dg: b}}))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		cfg := Config{
			ReassemblyTimeout: 3 * time.Second, MaxOpenReassemblies: 2, MaxReassemblyBytes: 512,
			MaxTrackedMessages: 4, MaxTrackedFragments: 8, PeerTimeout: 5 * time.Second,
			FlowIdle: 20 * time.Second, MaxFlowBytes: roomFor(3), MaxFinishedFlows: 2, MaxRTTSamples: 4,
		}
		tr := NewTracker(cfg)
		var dg Datagram
		info := make([]MsgInfo, 8) // shorter than some datagrams on purpose
		at := trkEpoch
		for frame := 1; len(in) >= 2; frame++ {
			ctrl, n := in[0], int(in[1])
			in = in[2:]
			n = min(n, len(in))
			b := in[:n]
			in = in[n:]
			at = at.Add(time.Duration(ctrl>>3) * time.Duration(ctrl>>3) * 100 * time.Millisecond)
			cl, sv := int(ctrl>>1&3), 0
			if cl == 3 {
				cl, sv = 2, 1
			}
			Decode(b, &dg)
			anoms := tr.Track(Packet{Frame: frame, Time: at, Client: trkClients[cl], Server: trkServers[sv],
				Dir: Dir(ctrl & 1), Size: len(b)}, &dg, info, nil)
			for _, a := range anoms {
				if a.Msg < -1 || a.Msg >= len(dg.Messages) || a.Code == 0 {
					t.Fatalf("frame %d: bad anomaly %+v", frame, a)
				}
			}
			for i := range min(len(info), len(dg.Messages)) {
				if len(info[i].Reassembled) > cfg.MaxReassemblyBytes {
					t.Fatalf("frame %d: reassembled %d bytes", frame, len(info[i].Reassembled))
				}
			}
			tr.Events()
			if err := tr.checkBounds(); err != nil {
				t.Fatalf("frame %d: %v", frame, err)
			}
		}
		tr.Finish()
		if err := tr.checkBounds(); err != nil {
			t.Fatal(err)
		}
		if len(tr.Flows()) > cfg.MaxFinishedFlows+1 {
			t.Fatalf("%d flow records", len(tr.Flows()))
		}
	})
}

func trkFuzzEncode(steps []trkStep) []byte {
	var out []byte
	prev := 0.0
	for _, s := range steps {
		v := 0
		for v < 31 && float64(v*v)/10 < s.at-prev {
			v++
		}
		prev = s.at
		out = append(out, byte(v<<3)|byte(s.cl&3)<<1|byte(s.dir&1), byte(min(len(s.dg), 255)))
		out = append(out, s.dg[:min(len(s.dg), 255)]...)
	}
	return out
}

// checkBounds verifies the tracker's state respects every configured limit
// and its internal bookkeeping adds up.
func (t *Tracker) checkBounds() error {
	c := t.cfg
	if err := t.checkTable(); err != nil {
		return err
	}
	if len(t.done) > c.MaxFinishedFlows || len(t.spare) > 16 || len(t.rpool) > 64 {
		return fmt.Errorf("done %d, spare %d, pool %d", len(t.done), len(t.spare), len(t.rpool))
	}
	for f := t.lru.head; f != nil; f = f.next {
		if len(f.reasm) > c.MaxOpenReassemblies || f.rbytes > c.MaxReassemblyBytes {
			return fmt.Errorf("flow %d: %d reassemblies, %d bytes", f.id, len(f.reasm), f.rbytes)
		}
		sum := 0
		for _, r := range f.reasm {
			sum += len(r.buf)
		}
		if sum != f.rbytes {
			return fmt.Errorf("flow %d: rbytes %d, buffers hold %d", f.id, f.rbytes, sum)
		}
		for d := range f.st.rtt {
			if f.st.rtt[d].Kept() > c.MaxRTTSamples {
				return fmt.Errorf("flow %d: %d RTT samples %v", f.id, f.st.rtt[d].Kept(), Dir(d))
			}
		}
		if uint64(f.st.rtt[C2S].Kept()+f.st.rtt[S2C].Kept()) != f.st.rttKept {
			return fmt.Errorf("flow %d: rttKept %d", f.id, f.st.rttKept)
		}
		chBytes := 0
		for d := range f.ch {
			for k := range f.ch[d] {
				chBytes += f.ch[d][k].size()
			}
		}
		if c := &f.st; chBytes != f.chBytes || int(f.nAnoms) != len(c.anoms) ||
			c.grown != c.reliable[0]+c.reliable[1]+c.fragments[0]+c.fragments[1] {
			return fmt.Errorf("flow %d: channels hold %d bytes, counted %d; %d anomaly codes, counted %d; grown %d",
				f.id, chBytes, f.chBytes, len(c.anoms), f.nAnoms, c.grown)
		}
		for d := range f.ch {
			for k := range f.ch[d] {
				ch := &f.ch[d][k]
				if ch.n > c.MaxTrackedMessages || ch.pieces > c.MaxTrackedFragments || ch.bySeq.n != ch.n ||
					len(ch.slots) > c.MaxTrackedMessages {
					return fmt.Errorf("flow %d %d/%d: %d messages, %d pieces, %d keys, %d slots",
						f.id, d, k, ch.n, ch.pieces, ch.bySeq.n, len(ch.slots))
				}
				n, pieces := 0, 0
				for i := ch.head; i >= 0; i = ch.slots[i].next {
					if n++; n > ch.n {
						return fmt.Errorf("flow %d: LRU list longer than %d", f.id, ch.n)
					}
					pieces += len(ch.slots[i].pieces)
					if j, ok := ch.bySeq.get(ch.slots[i].seq); !ok || j != i {
						return fmt.Errorf("flow %d: seq %d not indexed", f.id, ch.slots[i].seq)
					}
				}
				if n != ch.n || pieces != ch.pieces {
					return fmt.Errorf("flow %d: list %d/%d messages, %d/%d pieces", f.id, n, ch.n, pieces, ch.pieces)
				}
			}
		}
	}
	return nil
}

// checkTable verifies the flow table: map, list and heap hold the same
// flows, the heap is ordered and files no flow later than it is due, and
// the byte count adds up and stays within MaxFlowBytes (one flow alone may
// exceed it). A flow's count is recomputed when it may have grown
// (sizeKey); a layer's state that grew since is allowed some slack.
func (t *Tracker) checkTable() error {
	n, sum := 0, 0
	for f := t.lru.head; f != nil; f = f.next {
		if n++; n > len(t.flows) {
			return fmt.Errorf("LRU list longer than the %d flows", len(t.flows))
		}
		if t.flows[f.key] != f || f.hidx < 0 || f.hidx >= len(t.timers) || t.timers[f.hidx] != f {
			return fmt.Errorf("flow %d not in the map or heap", f.id)
		}
		if f.next == nil && t.lru.tail != f || f.next != nil && f.next.prev != f {
			return fmt.Errorf("flow %d: broken links", f.id)
		}
		if f.due > t.due(f) {
			return fmt.Errorf("flow %d filed at %d, due at %d", f.id, f.due, t.due(f))
		}
		if f.sized == f.sizeKey() && f.bytes < f.size()-4096 {
			return fmt.Errorf("flow %d counted as %d bytes, holds %d", f.id, f.bytes, f.size())
		}
		sum += f.bytes
	}
	if n != len(t.flows) || len(t.timers) != n {
		return fmt.Errorf("%d flows listed, %d in the map, %d in the heap", n, len(t.flows), len(t.timers))
	}
	for i := 1; i < len(t.timers); i++ {
		if t.timers.less(i, (i-1)/2) {
			return fmt.Errorf("heap out of order at %d", i)
		}
	}
	for i, set := range t.cache {
		for _, ce := range set {
			if ce.f == nil {
				continue
			}
			if slot, tag := cacheSlot(&ce.f.key); t.flows[ce.f.key] != ce.f || slot != i || tag != ce.tag {
				return fmt.Errorf("cache slot %d holds flow %d, not active there", i, ce.f.id)
			}
		}
		if set[0].f != nil && set[0].f == set[1].f {
			return fmt.Errorf("cache slot %d holds flow %d twice", i, set[0].f.id)
		}
	}
	if sum != t.bytes {
		return fmt.Errorf("flows hold %d bytes, counted %d", sum, t.bytes)
	}
	if t.bytes > t.cfg.MaxFlowBytes && n > 1 {
		return fmt.Errorf("%d flows hold %d bytes, more than %d", n, t.bytes, t.cfg.MaxFlowBytes)
	}
	return nil
}

// roomFor is a MaxFlowBytes with room for n small flows (a few messages
// each), but not n+1.
func roomFor(n int) int { return n*flowBaseBytes + flowBaseBytes/2 }
