// Command genrecord writes report/record/record_gen.go from the key table
// (report/jsonkeys); go generate ./report/record runs it:
//
//	go run ../internal/recordgen/cmd/genrecord -o record_gen.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/report/internal/recordgen"
)

func main() {
	out := flag.String("o", "record_gen.go", "output file")
	flag.Parse()
	src, err := recordgen.Generate()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genrecord:", err)
		os.Exit(1)
	}
}
