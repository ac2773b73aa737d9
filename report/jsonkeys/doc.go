// Package jsonkeys is the table of the keys of the JSON records `bcdump
// read -F json` prints (datagram, event and summary records): each key's
// path, type, which records carry it, what it means and how to read it.
//
// It is the one place the record's shape is written down. The filter's
// field schema (report/query) is built from it, the evaluator
// (query.Eval) resolves its paths by its names, and tests hold the rest
// to it: the JSON writer (report/render) emits exactly its keys on the
// test captures, the trace reader of report/diff reads only its keys,
// and the help topic json-keys is its Markdown form. The writer itself
// is hand-written for speed.
//
// It imports only report/filter (for the types).
package jsonkeys
