// Package game decodes the game opcodes carried in transport type 0x32
// payloads into a flat list of fields that every reporter can render.
// It imports only package checksum (the handshake's codec) and
// transport/anomaly (the malformed-payload text).
//
// The layout table (layout.go, Layouts) is the one description of every
// opcode: the decoders and the table summaries are generated from it
// (decoders_gen.go), and the field schema of the filter and of `bcdump
// fields` (dissect.Fields), the Wireshark plugin and the field reference
// of the help topic "opcodes" come from it too. Code written by hand stays
// where a benchmark or the format asks for it: StateUpdate's fast path
// (stateupdate.go; decodedByCode), the checksum handshake's recursive tree
// (checksum.go, its fields listed in a Shape), and the summaries that are
// not a list of fields (events, checksum, NetFile). TestLayoutsMatchDecoders
// holds every registered decoder to the table on every payload of the
// test captures and their mutations; TestShapesMatchDecoders holds the
// Shapes.
//
// # Adding an opcode
//
// For an opcode whose layout is a sequence of reads, tests and loops:
//
//  1. Give it a name in registry.go's names, if it has none.
//  2. Add its Layout to layouts in layout.go (and, for a table summary,
//     its fields to summaries).
//  3. Run go generate ./... : it writes the decoder and summarizer
//     (decoders_gen.go), the field schema (report/gamefields_gen.go) and
//     the help topic (cmd/bcdump/helptopics/opcodes.md).
//  4. Add its captured bytes to TestDecodeRealBytes (decode_test.go) and
//     to the fuzz seeds (capturedExamples).
//
// Every program that goes through a layout (the decoder generator, the
// field schema, the Wireshark plugin's tables, the conformance generator
// and its branch tracer) does it with Walk (walk.go), so a new kind of
// branch is added there once. A new Op needs its generated form
// (internal/decodergen), its interpreter
// (layout_test.go's layoutRun, and the plugin's exec table in
// report/wireshark/plugin.lua.tmpl), its kind (layoutfields.go) and its
// row in the field reference (report/internal/fieldgen/opcodes.go).
package game
