package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
)

// The relay of bcdump proxy: one socket that clients send to, one
// upstream socket per client towards the server (so the server sees
// distinct clients), a goroutine per socket. Every datagram is forwarded
// on the goroutine that read it, then a copy goes into a bounded queue
// for the decoder (relayRec, from a fixed pool: when the pool is empty
// the copy is skipped and counted, the relay never waits for decoding).

// relayRecCap is the bytes of a datagram a record keeps (a stock
// datagram is at most 512); a longer one is recorded cut, as a capture's
// snap length would.
const relayRecCap = 2048

type relayRec struct {
	t        time.Time
	src, dst netip.AddrPort
	data     []byte // at most relayRecCap bytes of the datagram
	length   int    // the datagram's length
	fault    string // what a --fault did to it; "" for none
	passed   bool   // false: the proxy kept it (drop); not decoded, written aside
}

type relayOptions struct {
	listen, server string
	maxClients     int
	idle           time.Duration
	queue          int // decode records in flight
	maxHeld        int // datagrams held by delay and reorder at once
	dropMalformed  bool
	seed           uint64
	rules          []*faultRule
	dissect        dissect.Options
}

type relay struct {
	opt       relayOptions
	ln        *net.UDPConn
	lnAddr    netip.AddrPort
	server    netip.AddrPort
	serverUDP *net.UDPAddr

	mu      sync.Mutex
	clients map[netip.AddrPort]*relayClient
	nextID  uint64

	pool  chan *relayRec
	queue chan *relayRec

	judge bool // some rule or --drop-malformed needs datagrams decoded

	relayed        [3]atomic.Uint64 // by dissect.Dir
	skipped        atomic.Uint64    // records the decoder had no room for
	refused        atomic.Uint64    // datagrams of clients past --max-clients
	malformed      atomic.Uint64    // datagrams that do not frame (forwarded unless --drop-malformed)
	heldOverflow   atomic.Uint64    // delays and reorders not done: too many datagrams held
	upstreamErrors atomic.Uint64
	held           atomic.Int64
	faults         []atomic.Uint64 // by rule

	done   chan struct{}
	closed atomic.Bool
	wg     sync.WaitGroup
}

type relayClient struct {
	id     uint64
	addr   netip.AddrPort
	up     *net.UDPConn
	upAddr netip.AddrPort
	last   atomic.Int64 // unix nanoseconds of the last datagram either way
	judge  *faultJudge  // s2c; the listen goroutine has the c2s one
	mu     sync.Mutex
	held   [3]*heldDg // reorder: one datagram held per direction
}

type heldDg struct {
	b     []byte
	fault string
}

// startRelay opens the sockets and starts relaying.
func startRelay(opt relayOptions) (*relay, error) {
	server, err := net.ResolveUDPAddr("udp", opt.server)
	if err != nil {
		return nil, fmt.Errorf("--server %s: %v", opt.server, oneLine(err))
	}
	la, err := net.ResolveUDPAddr("udp", opt.listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %v", opt.listen, oneLine(err))
	}
	ln, err := net.ListenUDP("udp", la)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("--listen %s: the port is in use (another program, or another bcdump proxy, listens there)", opt.listen)
		}
		return nil, fmt.Errorf("--listen %s: %v", opt.listen, oneLine(err))
	}
	r := &relay{
		opt: opt, ln: ln, lnAddr: unmapped(ln.LocalAddr().(*net.UDPAddr).AddrPort()),
		server: unmapped(server.AddrPort()), serverUDP: server,
		clients: map[netip.AddrPort]*relayClient{},
		pool:    make(chan *relayRec, opt.queue), queue: make(chan *relayRec, opt.queue),
		judge:  len(opt.rules) > 0 || opt.dropMalformed,
		faults: make([]atomic.Uint64, len(opt.rules)),
		done:   make(chan struct{}),
	}
	for i := 0; i < opt.queue; i++ {
		r.pool <- &relayRec{data: make([]byte, 0, relayRecCap)}
	}
	var cj *faultJudge
	if r.judge {
		cj = newFaultJudge(opt.rules, opt.dissect, opt.seed)
	}
	r.wg.Add(2)
	go r.listen(cj)
	go r.sweep()
	return r, nil
}

// probe sends a GameSpy status query to the server from a socket of its
// own and waits up to wait for any answer: a refused port is an error,
// silence is reported but not fatal (a server may not answer queries).
func (r *relay) probe(wait time.Duration) (answered bool, err error) {
	c, err := net.DialUDP("udp", nil, r.serverUDP)
	if err != nil {
		return false, fmt.Errorf("--server %s: %v", r.opt.server, oneLine(err))
	}
	defer c.Close()
	buf := make([]byte, 2048)
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if _, err := c.Write([]byte(`\status\`)); err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				return false, fmt.Errorf("--server %s: unreachable: nothing listens on that UDP port (connection refused)", r.opt.server)
			}
			return false, fmt.Errorf("--server %s: unreachable: %v", r.opt.server, oneLine(err))
		}
		_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		if _, err := c.Read(buf); err == nil {
			return true, nil
		} else if errors.Is(err, syscall.ECONNREFUSED) {
			return false, fmt.Errorf("--server %s: unreachable: nothing listens on that UDP port (connection refused)", r.opt.server)
		}
	}
	return false, nil
}

// oneLine keeps an error's text on one line.
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

func unmapped(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

// Addr is the address clients send to.
func (r *relay) Addr() netip.AddrPort { return r.lnAddr }

// close stops relaying: the sockets close, held datagrams are let go.
func (r *relay) close() {
	if r.closed.Swap(true) {
		return
	}
	close(r.done)
	r.ln.Close()
	r.mu.Lock()
	for _, c := range r.clients {
		c.up.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// clientCount is the number of clients being relayed.
func (r *relay) clientCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.clients)
}

func (r *relay) listen(judge *faultJudge) {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := r.ln.ReadFromUDPAddrPort(buf)
		if err != nil {
			if r.closed.Load() {
				return
			}
			continue
		}
		from = unmapped(from)
		c := r.client(from)
		if c == nil {
			r.refused.Add(1)
			continue
		}
		c.last.Store(time.Now().UnixNano())
		r.handle(c, dissect.C2S, buf[:n], judge)
	}
}

// client returns the client at addr, making it (and its upstream
// socket) if there is room.
func (r *relay) client(addr netip.AddrPort) *relayClient {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.clients[addr]; c != nil {
		return c
	}
	if len(r.clients) >= r.opt.maxClients || r.closed.Load() {
		return nil
	}
	up, err := net.DialUDP("udp", nil, r.serverUDP)
	if err != nil {
		r.upstreamErrors.Add(1)
		return nil
	}
	r.nextID++
	c := &relayClient{id: r.nextID, addr: addr, up: up, upAddr: unmapped(up.LocalAddr().(*net.UDPAddr).AddrPort())}
	if r.judge {
		c.judge = newFaultJudge(r.opt.rules, r.opt.dissect, r.opt.seed+c.id)
	}
	r.clients[addr] = c
	r.wg.Add(1)
	go r.upstream(c)
	return c
}

func (r *relay) upstream(c *relayClient) {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, err := c.up.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			r.upstreamErrors.Add(1) // e.g. ICMP port unreachable from the server
			continue
		}
		c.last.Store(time.Now().UnixNano())
		r.handle(c, dissect.S2C, buf[:n], c.judge)
	}
}

// sweep forgets clients idle for longer than --idle.
func (r *relay) sweep() {
	defer r.wg.Done()
	t := time.NewTicker(min(r.opt.idle/4+time.Millisecond, time.Second))
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case now := <-t.C:
			r.mu.Lock()
			for a, c := range r.clients {
				if now.UnixNano()-c.last.Load() > int64(r.opt.idle) {
					c.up.Close()
					delete(r.clients, a)
				}
			}
			r.mu.Unlock()
		}
	}
}

// ends are the addresses a record of a datagram shows: the client's and
// the server's real ones, or for a datagram the proxy did not pass on,
// the proxy's socket it arrived at.
func (r *relay) ends(c *relayClient, dir dissect.Dir, passed bool) (src, dst netip.AddrPort) {
	switch {
	case dir == dissect.C2S && passed:
		return c.addr, r.server
	case dir == dissect.C2S:
		return c.addr, r.lnAddr
	case passed:
		return r.server, c.addr
	}
	return r.server, c.upAddr
}

// handle forwards one datagram read in direction dir, applying the
// faults.
func (r *relay) handle(c *relayClient, dir dissect.Dir, b []byte, judge *faultJudge) {
	if judge == nil {
		r.send(c, dir, b, "")
		return
	}
	src, dst := r.ends(c, dir, true)
	v := judge.judge(b, src, dst, time.Now())
	if judge.malform {
		r.malformed.Add(1)
		if r.opt.dropMalformed {
			r.record(c, dir, false, b, "--drop-malformed: dropped a datagram that does not frame")
			return
		}
	}
	switch {
	case v.whole >= 0:
		r.applyWhole(c, dir, b, judge, v.whole, "")
	case v.msgs:
		r.applyMsgs(c, dir, judge)
	default:
		r.send(c, dir, b, "")
	}
}

// send forwards b and records it; a datagram held by reorder in that
// direction follows it.
func (r *relay) send(c *relayClient, dir dissect.Dir, b []byte, fault string) {
	r.write(c, dir, b, fault)
	if h := c.take(dir); h != nil {
		r.write(c, dir, h.b, h.fault)
		r.held.Add(-1)
	}
}

func (r *relay) write(c *relayClient, dir dissect.Dir, b []byte, fault string) {
	if r.closed.Load() {
		return
	}
	var err error
	if dir == dissect.C2S {
		_, err = c.up.Write(b)
	} else {
		_, err = r.ln.WriteToUDPAddrPort(b, c.addr)
	}
	if err != nil {
		r.upstreamErrors.Add(1)
	}
	r.relayed[dir].Add(1)
	r.record(c, dir, true, b, fault)
}

// take returns and clears the datagram held for dir, if any.
func (c *relayClient) take(dir dissect.Dir) *heldDg {
	c.mu.Lock()
	h := c.held[dir]
	c.held[dir] = nil
	c.mu.Unlock()
	return h
}

// record queues a copy of b for the decoder, or counts it skipped.
func (r *relay) record(c *relayClient, dir dissect.Dir, passed bool, b []byte, fault string) {
	var rec *relayRec
	select {
	case rec = <-r.pool:
	default:
		r.skipped.Add(1)
		return
	}
	rec.t = time.Now()
	rec.src, rec.dst = r.ends(c, dir, passed)
	rec.data = append(rec.data[:0], b[:min(len(b), relayRecCap)]...)
	rec.length = len(b)
	rec.fault = fault
	rec.passed = passed
	select {
	case r.queue <- rec:
	default: // cannot happen: the queue holds every record of the pool
		r.pool <- rec
		r.skipped.Add(1)
	}
}

// applyWhole does rule ri's action to the whole datagram b. what names
// the part acted on when b was cut out of a bigger datagram.
func (r *relay) applyWhole(c *relayClient, dir dissect.Dir, b []byte, judge *faultJudge, ri int, what string) {
	rule := r.opt.rules[ri]
	r.faults[ri].Add(1)
	label := "fault " + rule.label() + ": " + rule.action.String()
	if what != "" {
		label += " " + what
	}
	switch rule.action {
	case faultDrop:
		r.record(c, dir, false, b, label)
	case faultDup:
		r.send(c, dir, b, fmt.Sprintf("%s %d (the original)", label, rule.dup))
		for k := 1; k <= rule.dup; k++ {
			r.write(c, dir, b, fmt.Sprintf("%s: copy %d of %d", label, k, rule.dup))
		}
	case faultCorrupt:
		cp := append([]byte(nil), b...)
		pos := 0
		if len(cp) > 1 {
			pos = 1 + judge.rng.IntN(len(cp)-1)
		}
		if len(cp) > 0 {
			cp[pos] ^= byte(1 + judge.rng.IntN(255))
		}
		r.send(c, dir, cp, fmt.Sprintf("%s: byte %d changed", label, pos))
	case faultDelay:
		if !r.hold(c, dir, b, label, "not delayed") {
			return
		}
		cp := append([]byte(nil), b...)
		time.AfterFunc(rule.delay, func() {
			r.held.Add(-1)
			r.send(c, dir, cp, fmt.Sprintf("%s %v", label, rule.delay))
		})
	case faultReorder:
		if !r.hold(c, dir, b, label, "not held") {
			return
		}
		h := &heldDg{b: append([]byte(nil), b...), fault: label + ": held, sent after the next datagram"}
		c.mu.Lock()
		prev := c.held[dir]
		c.held[dir] = h
		c.mu.Unlock()
		if prev != nil { // a held one goes first
			r.write(c, dir, prev.b, prev.fault)
			r.held.Add(-1)
		}
		// Released by the next datagram, or after a second of silence.
		time.AfterFunc(time.Second, func() {
			c.mu.Lock()
			still := c.held[dir] == h
			if still {
				c.held[dir] = nil
			}
			c.mu.Unlock()
			if still {
				r.held.Add(-1)
				r.write(c, dir, h.b, label+": held, sent after 1 s with no next datagram")
			}
		})
	}
}

// hold takes one of the maxHeld places for a datagram a fault holds
// back (delay, reorder). With none left it says false and b goes on at
// once, its fault "LABEL: NOTHELD, too many datagrams held".
func (r *relay) hold(c *relayClient, dir dissect.Dir, b []byte, label, notHeld string) bool {
	if r.held.Add(1) <= int64(r.opt.maxHeld) {
		return true
	}
	r.held.Add(-1)
	r.heldOverflow.Add(1)
	r.send(c, dir, b, label+": "+notHeld+", too many datagrams held")
	return false
}

// applyMsgs re-frames the judged datagram: messages a rule acts on are
// dropped, repeated, changed, or cut out into datagrams of their own to
// delay or hold; the rest go on in one datagram, enciphered again.
func (r *relay) applyMsgs(c *relayClient, dir dissect.Dir, judge *faultJudge) {
	dg := &judge.dg
	plain := dg.Plain
	out := append(make([]byte, 0, len(plain)+64), plain[0], 0)
	count := 0
	var notes []string
	type apart struct {
		ri   int
		b    []byte
		what string
	}
	var aparts []apart
	for k := range dg.Transport.Messages {
		m := &dg.Transport.Messages[k]
		raw := plain[m.Offset : m.Offset+m.Len]
		ri := int(judge.mark[k])
		if ri < 0 {
			out = append(out, raw...)
			count++
			continue
		}
		rule := r.opt.rules[ri]
		what := fmt.Sprintf("message %d (%s)", k, judge.msgLabel(k))
		note := "fault " + rule.label() + ": " + rule.action.String() + " " + what
		switch rule.action {
		case faultDrop:
			r.faults[ri].Add(1)
		case faultDup:
			r.faults[ri].Add(1)
			n := min(rule.dup, 255-count-1-(len(dg.Transport.Messages)-k-1))
			for i := 0; i <= max(n, 0); i++ {
				out = append(out, raw...)
				count++
			}
			note += fmt.Sprintf(", %d copies", max(n, 0))
		case faultCorrupt:
			r.faults[ri].Add(1)
			at := len(out)
			out = append(out, raw...)
			pos := m.PayloadOff - m.Offset
			if pos >= len(raw) {
				pos = len(raw) - 1
			} else {
				pos += judge.rng.IntN(len(raw) - pos)
			}
			out[at+pos] ^= byte(1 + judge.rng.IntN(255))
			count++
			note += fmt.Sprintf(", byte %d of the message changed", pos)
		case faultDelay, faultReorder:
			b := append([]byte{plain[0], 1}, raw...)
			aparts = append(aparts, apart{ri, b, what})
			note = ""
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	fault := strings.Join(notes, "; ")
	if count > 0 {
		out[1] = byte(count)
		cipher.Encrypt(out)
		r.send(c, dir, out, fault)
	} else if fault != "" {
		r.record(c, dir, false, dg.Raw, fault)
	}
	for _, a := range aparts {
		cipher.Encrypt(a.b)
		r.applyWhole(c, dir, a.b, judge, a.ri, a.what)
	}
}

// faultCounts lists the rules that acted, with their counts.
func (r *relay) faultCounts() []string {
	var v []string
	for i, rule := range r.opt.rules {
		v = append(v, fmt.Sprintf("%s: %d", rule.label(), r.faults[i].Load()))
	}
	return v
}
