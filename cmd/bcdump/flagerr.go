package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// flagError rewrites pflag's parse errors, which end in the Go parser's
// message (`strconv.ParseUint: parsing "-1": invalid syntax`), into words:
// which flag, what value, what it wants.
func flagError(cmd *cobra.Command, err error) error {
	if m := unknownShort.FindStringSubmatch(err.Error()); m != nil && cmd.Name() == "read" {
		if hint, ok := tsharkHints[m[1]]; ok {
			return fmt.Errorf("%w: %s", err, hint)
		}
	}
	m := badArg.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, names, cause := m[1], m[2], m[3]
	long := names[strings.LastIndex(names, "--")+2:]
	f := cmd.Flags().Lookup(long)
	if cs := flagChoices(f); cs != nil {
		return fmt.Errorf("%s %s", names, cs.refuse(value))
	}
	if f == nil {
		return fmt.Errorf("%s %q: not a valid value", names, value)
	}
	return fmt.Errorf("%s %q: %s", names, value, wants(f.Value.Type(), cause))
}

// badArg is pflag's message for a value its parser rejected.
var badArg = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)

// unknownShort is pflag's message for a letter no flag has.
var unknownShort = regexp.MustCompile(`^unknown shorthand flag: '(.)' in `)

var unitErr = regexp.MustCompile(`unknown unit "([^"]*)"`)

// wants says what a flag of pflag type typ accepts.
func wants(typ, cause string) string {
	outOfRange := strings.HasSuffix(cause, "value out of range")
	switch typ {
	case "uint", "uintSlice", "uint8", "uint16", "uint32", "uint64":
		if outOfRange {
			return "too large"
		}
		return "want a whole number, 0 or more"
	case "int", "intSlice", "int8", "int16", "int32", "int64", "count":
		if outOfRange {
			return "too large"
		}
		return "want a whole number"
	case "float32", "float64", "float64Slice":
		return "want a number"
	case "bool", "boolSlice":
		return "want true or false"
	case "duration", "durationSlice":
		if m := unitErr.FindStringSubmatch(cause); m != nil {
			return fmt.Sprintf("unknown unit %q; want a duration like 500ms, 30s, 10m or 1h", m[1])
		}
		return "want a duration like 500ms, 30s, 10m or 1h"
	}
	return "not a valid value"
}
