// Package query answers which records a display filter selects: the
// field schema the filter language (report/filter) is checked against,
// built from the record key table (report/jsonkeys) and the decoders'
// fields (gamefields_gen.go); Eval, which tests a filter on a decoded
// datagram or event without rendering it; and Select and Planner, the
// Sinks that pass on only the selected records (-Y, -c, -C).
//
// It imports report/filter, report/jsonkeys and report/render (for the
// JSON writer's value texts and the reporters' out-of-order rendering),
// and dissect, dissect/game and transport below them.
package query
