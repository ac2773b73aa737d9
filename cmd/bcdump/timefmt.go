package main

import (
	"fmt"

	"github.com/bcdump/bcdump/report/render"
)

// timeFormats are the values of -t, --time-format.
var timeFormats = render.TimeFormatNames

// setTimeFormat applies -t to the reporter; the table and hex formats
// have a time column, JSON has both forms always (time and ts).
func setTimeFormat(rep render.Reporter, format, name string) error {
	tf, err := render.ParseTimeFormat(name)
	if err != nil {
		return err
	}
	r, ok := rep.(render.TimeFormatter)
	if !ok {
		return fmt.Errorf("-t changes the time column of the table and hex formats; --format %s has none (its records carry time and ts)", format)
	}
	r.SetTimeFormat(tf)
	return nil
}
