package main

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
	"github.com/bcdump/bcdump/report/story"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// A recorded stock datagram (stock-excerpts, packet #8: ACK + ChecksumReq
// round 1), enciphered as on the wire.
var benchDatagram, _ = hex.DecodeString("01D401E7519873C9218B3AC5B9380B0A6D3973588D3441D5A4E57F273D1D81C6950DF88E5A32")

// echoServer answers every datagram with itself.
func echoServer(tb testing.TB) *net.UDPConn {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			_, _ = c.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	return c
}

func testRelay(tb testing.TB, server string, rules []string) *relay {
	o := &proxyOptions{listen: "127.0.0.1:0", server: server, maxClients: 64, idle: time.Minute, queue: 4096, faults: rules}
	ro, err := o.relayOptions()
	if err != nil {
		tb.Fatal(err)
	}
	sp, _ := serverPort(server)
	ro.dissect.Ports = addPort(nil, sp)
	r, err := startRelay(ro)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(r.close)
	return r
}

// TestProxyRelayAllocs: relaying a datagram with no fault rule allocates
// nothing (the decoder's copy comes from the record pool).
func TestProxyRelayAllocs(t *testing.T) {
	transporttest.NeedUDP(t)
	echo := echoServer(t)
	defer echo.Close()
	r := testRelay(t, echo.LocalAddr().String(), nil)
	c := r.client(netip.MustParseAddrPort("127.0.0.1:9"))
	drain := func() {
		for {
			select {
			case rec := <-r.queue:
				r.pool <- rec
			default:
				return
			}
		}
	}
	allocs := testing.AllocsPerRun(2000, func() {
		r.handle(c, dissect.C2S, benchDatagram, nil)
		r.handle(c, dissect.S2C, benchDatagram, nil)
		drain()
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per relayed pair", allocs)
	}
}

// BenchmarkProxyRelay relays the traffic of 16 clients sending 100
// datagrams a second each (one round of 16 every 10 ms; b.N rounds)
// through the proxy with decoding on (the JSON output to io.Discard, the
// stats and the session story), to an echo server, and reports the
// latency the proxy adds: the round trip through it against the direct
// one, as percentiles.
func BenchmarkProxyRelay(b *testing.B) {
	b.Run("decode", func(b *testing.B) { benchRelay(b, true) })
	b.Run("nodecode", func(b *testing.B) { benchRelay(b, false) })
}

func benchRelay(b *testing.B, decode bool) {
	echo := echoServer(b)
	defer echo.Close()
	r := testRelay(b, echo.LocalAddr().String(), nil)
	src := newProxySource(r, proxyTick)
	opt := dissect.Options{Ports: r.opt.dissect.Ports}
	sess := dissect.NewSession(dissect.SessionOptions{Options: opt, Mode: dissect.Serial, EventsAsFound: true})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if decode {
			_ = sess.Run(ctx, src, dissect.Chain(stats.NewStats(), story.New(), render.NewJSON(io.Discard, true)))
			return
		}
		for { // the queue emptied as the decoder would, nothing decoded
			select {
			case <-ctx.Done():
				return
			case rec := <-r.queue:
				r.pool <- rec
			}
		}
	}()
	const clients = 16
	rtt := func(via netip.AddrPort, rounds int) []time.Duration {
		conns := make([]*net.UDPConn, clients)
		for i := range conns {
			c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(via))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			conns[i] = c
		}
		var mu sync.Mutex
		var all []time.Duration
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for round := 0; round < rounds; round++ {
			<-tick.C
			var rw sync.WaitGroup
			for _, c := range conns {
				rw.Add(1)
				go func(c *net.UDPConn) {
					defer rw.Done()
					buf := make([]byte, 2048)
					t0 := time.Now()
					if _, err := c.Write(benchDatagram); err != nil {
						return
					}
					_ = c.SetReadDeadline(time.Now().Add(time.Second))
					if _, err := c.Read(buf); err != nil {
						return
					}
					d := time.Since(t0)
					mu.Lock()
					all = append(all, d)
					mu.Unlock()
				}(c)
			}
			rw.Wait()
		}
		slices.Sort(all)
		return all
	}
	pct := func(v []time.Duration, p float64) time.Duration {
		if len(v) == 0 {
			return 0
		}
		return v[min(len(v)-1, int(float64(len(v))*p))]
	}
	b.ResetTimer()
	direct := rtt(unmapped(echo.LocalAddr().(*net.UDPAddr).AddrPort()), b.N)
	proxied := rtt(r.Addr(), b.N)
	b.StopTimer()
	cancel()
	wg.Wait()
	for _, p := range []float64{0.5, 0.99} {
		name := "p50"
		if p == 0.99 {
			name = "p99"
		}
		b.ReportMetric(float64(pct(proxied, p)-pct(direct, p))/1e3, name+"-added-µs")
		b.ReportMetric(float64(pct(direct, p))/1e3, name+"-direct-µs")
	}
	b.ReportMetric(float64(r.skipped.Load()), "skipped")
	b.ReportMetric(float64(len(proxied)), "replies")
}
