// Command genfields writes report/query/gamefields_gen.go; go generate ./report/query
// runs it:
//
//	go run ../internal/fieldgen/cmd/genfields -o gamefields_gen.go -game ../../dissect/game -dissect ../../dissect
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/report/internal/fieldgen"
)

func main() {
	out := flag.String("o", "gamefields_gen.go", "output file")
	game := flag.String("game", "../dissect/game", "the dissect/game package directory")
	dissect := flag.String("dissect", "../dissect", "the dissect package directory")
	flag.Parse()
	src, err := fieldgen.Generate(*game, *dissect)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfields:", err)
		os.Exit(1)
	}
}
