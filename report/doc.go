// Package report is the directory of bcdump's outputs; it holds no code.
// Its subpackages, by job:
//
//   - renderers: render (table, JSON Lines, hex; `bcdump read`);
//   - the record and the filter: jsonkeys (the JSON record's keys),
//     filter (the display filter language), query (the field schema,
//     Eval and Select);
//   - analyses: stats (`bcdump stats`), story (`bcdump session`),
//     profile (`bcdump profile`), diff (`bcdump diff`);
//   - generators: htmlreport (`bcdump report`), wireshark (the Lua
//     plugin);
//   - text for people: quote (how strings from a capture and file names
//     are shown: escaped, never raw controls), fit (tables and lines
//     fitted to the terminal's width);
//   - test and build support: reporttest, internal/jsonerr,
//     internal/fieldgen.
//
// Report packages import dissect and the layers below it, never cmd. Among
// themselves imports point from generators to analyses, from analyses to
// stats, query and render, from query to render, jsonkeys and filter;
// render imports only the leaves quote and fit, jsonkeys only filter, and
// quote, fit and filter import none (dissect's TestImportsPointOneWay holds
// the order; the dissect package comment draws the path of a datagram).
package report
