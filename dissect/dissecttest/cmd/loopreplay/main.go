// Command loopreplay sends the game datagrams of a capture again over
// loopback, each from its own side: one socket on 127.0.0.1 for the
// server (the game port) and one for each client of the capture, in the
// capture's order with a fixed gap, then exits. CI uses it to give
// bcdump live (the Linux and the Windows build at once) the same real
// traffic to decode (.ci/wine/live):
//
//	go run ./dissect/dissecttest/cmd/loopreplay testdata/captures/openbc-session-2.pcap
//
// It sends at most -max datagrams, and only to 127.0.0.1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

func main() {
	port := flag.Uint("port", uint(capture.DefaultPort), "the server's game port, in the capture and on loopback")
	gap := flag.Duration("gap", time.Millisecond, "pause after each datagram")
	limit := flag.Int("max", 10000, "send at most this many datagrams")
	count := flag.Bool("count", false, "print how many datagrams it would send, send nothing")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: loopreplay [flags] capture\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *port == 0 || *port > 65535 {
		flag.Usage()
		os.Exit(2)
	}
	if *count {
		n, err := replay(flag.Arg(0), uint16(*port), 0, *limit, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loopreplay:", err)
			os.Exit(1)
		}
		fmt.Println(n)
		return
	}
	n, err := replay(flag.Arg(0), uint16(*port), *gap, *limit, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopreplay:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "loopreplay: sent %d datagrams\n", n)
}

// replay sends path's datagrams to and from port on 127.0.0.1; with dry
// it only counts them.
func replay(path string, port uint16, gap time.Duration, limit int, dry bool) (int, error) {
	r, err := capture.Open(path, capture.Options{Ports: []uint16{port}})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if dry {
		n := 0
		var p capture.Packet
		for n < limit {
			err := r.Next(&p)
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			if sendable(&p, port) {
				n++
			}
		}
		return n, nil
	}
	lo := netip.MustParseAddr("127.0.0.1")
	server, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(lo, port)))
	if err != nil {
		return 0, err
	}
	defer server.Close()
	serverAddr := netip.AddrPortFrom(lo, port)
	clients := map[netip.AddrPort]*net.UDPConn{} // by the capture's client address
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	client := func(a netip.AddrPort) (*net.UDPConn, error) {
		if c := clients[a]; c != nil {
			return c, nil
		}
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: lo.AsSlice()})
		if err != nil {
			return nil, err
		}
		clients[a] = c
		return c, nil
	}
	sent := 0
	var p capture.Packet
	for sent < limit {
		err := r.Next(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sent, err
		}
		if !sendable(&p, port) {
			continue
		}
		switch {
		case p.Dst.Port() == port:
			c, err := client(p.Src)
			if err != nil {
				return sent, err
			}
			_, err = c.WriteToUDPAddrPort(p.Payload, serverAddr)
			if err != nil {
				return sent, err
			}
		case p.Src.Port() == port:
			c, err := client(p.Dst)
			if err != nil {
				return sent, err
			}
			_, err = server.WriteToUDPAddrPort(p.Payload, c.LocalAddr().(*net.UDPAddr).AddrPort())
			if err != nil {
				return sent, err
			}
		}
		sent++
		time.Sleep(gap)
	}
	return sent, nil
}

// sendable reports whether p is a whole datagram to or from port.
func sendable(p *capture.Packet, port uint16) bool {
	return p.Kind == capture.KindMatched && !p.Truncated && p.Missing == 0 &&
		(p.Dst.Port() == port || p.Src.Port() == port)
}
