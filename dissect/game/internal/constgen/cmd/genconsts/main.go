// Command genconsts writes dissect/game/protocol_gen.go; go generate
// ./dissect/game runs it:
//
//	go run ./internal/constgen/cmd/genconsts -o protocol_gen.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/dissect/game/internal/constgen"
)

func main() {
	out := flag.String("o", "protocol_gen.go", "output file")
	flag.Parse()
	src, err := constgen.Generate()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genconsts:", err)
		os.Exit(1)
	}
}
