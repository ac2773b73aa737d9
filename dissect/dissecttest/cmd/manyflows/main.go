// Command manyflows writes the many-flow capture of dissecttest.ManyFlows,
// for measuring the memory bcdump needs per flow:
//
//	go run ./dissect/dissecttest/cmd/manyflows -n 1000000 > m.pcap
//	/usr/bin/time -v bcdump stats m.pcap   # Maximum resident set size
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func main() {
	n := flag.Int("n", 1000000, "flows")
	span := flag.Duration("span", 100*time.Second, "capture time the flows start within (under 120s: all active at once)")
	reply := flag.Bool("reply", true, "the server answers each connect request (a reliable message each way)")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if err := dissecttest.ManyFlows(w, *n, *span, *reply); err != nil {
		fmt.Fprintln(os.Stderr, "manyflows:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "manyflows:", err)
		os.Exit(1)
	}
}
