// Command gendecoders writes dissect/game/decoders_gen.go; go generate
// ./dissect/game runs it:
//
//	go run ./internal/decodergen/cmd/gendecoders -o decoders_gen.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/dissect/game/internal/decodergen"
)

func main() {
	out := flag.String("o", "decoders_gen.go", "output file")
	flag.Parse()
	src, err := decodergen.Generate()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendecoders:", err)
		os.Exit(1)
	}
}
