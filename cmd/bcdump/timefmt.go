package main

import (
	"fmt"

	"github.com/bcdump/bcdump/report"
)

// timeFormats are the values of -t, --time-format.
var timeFormats = report.TimeFormatNames

// setTimeFormat applies -t to the reporter; the table and hex formats
// have a time column, JSON has both forms always (time and ts).
func setTimeFormat(rep report.Reporter, format, name string) error {
	tf, err := report.ParseTimeFormat(name)
	if err != nil {
		return err
	}
	r, ok := rep.(report.TimeFormatter)
	if !ok {
		return fmt.Errorf("-t changes the time column of the table and hex formats; --format %s has none (its records carry time and ts)", format)
	}
	r.SetTimeFormat(tf)
	return nil
}
