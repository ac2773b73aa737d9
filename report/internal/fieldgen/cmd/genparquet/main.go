// Command genparquet writes report/columnar/fields_gen.go; go generate
// ./report/columnar runs it:
//
//	go run ../internal/fieldgen/cmd/genparquet -o fields_gen.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/report/internal/fieldgen"
)

func main() {
	out := flag.String("o", "fields_gen.go", "output file")
	flag.Parse()
	src, err := fieldgen.GenerateParquet()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genparquet:", err)
		os.Exit(1)
	}
}
