// Command genfields writes report/query/gamefields_gen.go; go generate
// ./report/query runs it:
//
//	go run ../internal/fieldgen/cmd/genfields -o gamefields_gen.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/report/internal/fieldgen"
)

func main() {
	out := flag.String("o", "gamefields_gen.go", "output file")
	flag.Parse()
	src, err := fieldgen.Generate()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfields:", err)
		os.Exit(1)
	}
}
