package main

import (
	"net"
	"net/netip"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// FuzzProxyHostile hands hostile datagrams to the relay in both
// directions, with fault rules of every kind (per datagram and per
// message) active: nothing may panic, and the relay's state stays inside
// its bounds (held datagrams, clients, the decoder's record pool).
func FuzzProxyHostile(f *testing.F) {
	transporttest.NeedUDP(f)
	f.Add(benchDatagram, true)
	f.Add([]byte(`\status\`), false)
	f.Add([]byte{0x02, 0x01, 0x32, 0x0A, 0xA0, 0x05, 0x00, 0x00, 0xFF, 0xAA}, true)
	f.Add([]byte{0x01}, false)
	var fuzzRelay struct {
		r      *relay
		c      *relayClient
		cj, sj *faultJudge
	}
	{
		// A server that never answers: the fuzz input is the only traffic.
		sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			f.Fatal(err)
		}
		go func() {
			buf := make([]byte, 65536)
			for {
				if _, _, err := sink.ReadFromUDPAddrPort(buf); err != nil {
					return
				}
			}
		}()
		r := testRelay(f, sink.LocalAddr().String(), []string{
			`drop 30% if messages.type_name == "ACK"`,
			`dup 3 25% if messages.reliable == true`,
			`corrupt 20% if messages.fragment == true`,
			`delay 1ms 20% if msg_count > 2`,
			`reorder 20% if dir == "s2c"`,
			`corrupt 10% if kind == "gamespy"`,
			`dup 8 10%`,
		})
		r.opt.maxHeld = 64
		fuzzRelay.r = r
		fuzzRelay.c = r.client(netip.MustParseAddrPort("127.0.0.1:9"))
		fuzzRelay.cj = newFaultJudge(r.opt.rules, r.opt.dissect, 1)
		fuzzRelay.sj = newFaultJudge(r.opt.rules, r.opt.dissect, 2)
		f.Cleanup(func() { sink.Close() })
	}
	f.Fuzz(func(t *testing.T, b []byte, c2s bool) {
		r, c := fuzzRelay.r, fuzzRelay.c
		if c2s {
			r.handle(c, dissect.C2S, b, fuzzRelay.cj)
		} else {
			r.handle(c, dissect.S2C, b, fuzzRelay.sj)
		}
		for drained := false; !drained; {
			select {
			case rec := <-r.queue:
				r.pool <- rec
			default:
				drained = true
			}
		}
		if h := r.held.Load(); h > int64(r.opt.maxHeld) || h < 0 {
			t.Fatalf("%d datagrams held, bound %d", h, r.opt.maxHeld)
		}
		if n := r.clientCount(); n > r.opt.maxClients {
			t.Fatalf("%d clients", n)
		}
		if n := len(r.pool) + len(r.queue); n > r.opt.queue {
			t.Fatalf("%d records", n)
		}
	})
}
