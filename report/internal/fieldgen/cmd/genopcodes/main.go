// Command genopcodes writes cmd/bcdump/helptopics/opcodes.md, the field
// reference per opcode; go generate ./report/internal/fieldgen runs it:
//
//	go run ./cmd/genopcodes -o ../../../cmd/bcdump/helptopics/opcodes.md
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/report/internal/fieldgen"
)

func main() {
	out := flag.String("o", "opcodes.md", "output file")
	flag.Parse()
	if err := os.WriteFile(*out, fieldgen.OpcodesMarkdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genopcodes:", err)
		os.Exit(1)
	}
}
