package diff

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/stats"
)

// maxChangesJSON bounds the changes listed for one message in the JSON
// output; "more_changes" counts the rest.
const maxChangesJSON = 100

// The JSON document (`bcdump diff --format json`) is one object: "old" and
// "new" (jsonSource), "equal", "summary" (Summary), "flows" (jsonFlow) and
// "differences" (jsonDiff), in that order (WriteJSON). Keys are a contract
// like those of `read --format json`: new keys may be added, none renamed.
type jsonSource struct {
	Name         string `json:"name"`
	Format       string `json:"format"`
	Datagrams    int    `json:"datagrams"`
	Flows        int    `json:"flows"` // client flows (game traffic), as stats counts them
	GameSpyFlows int    `json:"gamespy_flows"`
	Messages     int    `json:"messages"`
	// Datagrams of the flows past Options.MaxFlows, compared as one
	// merged flow (role "merged").
	MergedDatagrams int `json:"merged_datagrams,omitempty"`
}

type jsonFlow struct {
	Flow        int           `json:"flow"`
	Role        string        `json:"role"`
	Old         *jsonFlowSide `json:"old"`
	New         *jsonFlowSide `json:"new"`
	Differences int           `json:"differences"`
}

type jsonFlowSide struct {
	Number     int    `json:"number"`
	Client     string `json:"client"`
	Server     string `json:"server"`
	FirstFrame int    `json:"first_frame"`
	C2S        int    `json:"c2s_messages"`
	S2C        int    `json:"s2c_messages"`
	// RTT by direction of the acknowledged message (transport.RTT), from
	// the rtt_ms of the ACKs: the figures `bcdump stats` prints.
	RTT stats.RTTDirsDoc `json:"rtt"`
}

type jsonDiff struct {
	Flow        int          `json:"flow"`
	Dir         string       `json:"dir,omitempty"`
	Op          string       `json:"op"`
	Old         *jsonMsg     `json:"old,omitempty"`
	New         *jsonMsg     `json:"new,omitempty"`
	Changes     []jsonChange `json:"changes,omitempty"`
	MoreChanges int          `json:"more_changes,omitempty"`
}

type jsonMsg struct {
	Frame   int    `json:"frame"`
	Msg     *int   `json:"msg,omitempty"`
	Summary string `json:"summary"`
}

type jsonChange struct {
	Path string          `json:"path"`
	Old  json.RawMessage `json:"old"`
	New  json.RawMessage `json:"new"`
	Note string          `json:"note,omitempty"`
}

// WriteJSON writes the result as one JSON document: both sources, the
// summary, every flow pair, and every difference (no context). It is
// written piece by piece, as json.MarshalIndent would write it whole, so
// its memory does not grow with the differences.
func (r *Result) WriteJSON(w io.Writer) error {
	if err := r.edits.spillFailed(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	jw := &jsonStream{w: bw}
	jw.raw("{\n")
	jw.member("old", source(r.Old), false)
	jw.member("new", source(r.New), false)
	jw.member("equal", r.Equal(), false)
	jw.member("summary", r.Summary, false)
	jw.open("flows")
	for _, fd := range r.Flows {
		jw.elem(jsonFlow{
			Flow: fd.Index, Role: fd.Role.String(),
			Old: flowSide(fd.Old), New: flowSide(fd.New),
			Differences: fd.Differences(),
		})
	}
	jw.close(false)
	jw.open("differences")
	er := r.reader()
	for _, fd := range r.Flows {
		if len(fd.Addr) > 0 {
			jw.elem(jsonDiff{Flow: fd.Index, Op: "addresses", Changes: jsonChanges(fd.Addr)})
		}
		for d := range 2 {
			for k := range fd.n[d] {
				if o := er.op(fd, d, k); o == Equal || o == opSkip {
					continue
				}
				e := er.edit(fd, d, k)
				if e.Op == Equal || e.Op == opSkip {
					continue
				}
				jd := jsonDiff{Flow: fd.Index, Dir: dirNames[d], Op: e.Op.String(), Old: jsonMessage(e.Old), New: jsonMessage(e.New)}
				ch := e.Changes
				if len(ch) > maxChangesJSON {
					jd.MoreChanges = len(ch) - maxChangesJSON
					ch = ch[:maxChangesJSON]
				}
				jd.Changes = jsonChanges(ch)
				jw.elem(jd)
			}
		}
	}
	jw.close(true)
	jw.raw("}\n")
	if jw.err != nil {
		return jw.err
	}
	return bw.Flush()
}

// jsonStream writes a JSON object of members and arrays in the layout of
// json.MarshalIndent(v, "", "  "), one value at a time, each through
// quote.JSON.
type jsonStream struct {
	w     *bufio.Writer
	err   error
	elems int // elements of the open array
}

func (j *jsonStream) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

func (j *jsonStream) value(v any, prefix string) {
	if j.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.w.Write(quote.JSON(b))
}

func (j *jsonStream) member(name string, v any, last bool) {
	j.raw("  " + strconv.Quote(name) + ": ")
	j.value(v, "  ")
	if !last {
		j.raw(",")
	}
	j.raw("\n")
}

func (j *jsonStream) open(name string) {
	j.raw("  " + strconv.Quote(name) + ": [")
	j.elems = 0
}

func (j *jsonStream) elem(v any) {
	if j.elems > 0 {
		j.raw(",")
	}
	j.raw("\n    ")
	j.value(v, "    ")
	j.elems++
}

func (j *jsonStream) close(last bool) {
	if j.elems > 0 {
		j.raw("\n  ")
	}
	j.raw("]")
	if !last {
		j.raw(",")
	}
	j.raw("\n")
}

func source(c *Conversation) jsonSource {
	s := jsonSource{Name: c.Name, Format: c.Format, Datagrams: c.Datagrams, Messages: c.Messages(), MergedDatagrams: c.Merged}
	for _, f := range c.Flows {
		switch f.Role {
		case RoleClient:
			s.Flows++
		case RoleGameSpy:
			s.GameSpyFlows++
		}
	}
	return s
}

func flowSide(f *Flow) *jsonFlowSide {
	if f == nil {
		return nil
	}
	return &jsonFlowSide{Number: f.Number, Client: f.Client, Server: f.Server, FirstFrame: f.FirstFrame,
		C2S: f.count[C2S], S2C: f.count[S2C],
		RTT: stats.RTTDirsDoc{C2S: stats.RTTDocOf(f.RTT(C2S), false), S2C: stats.RTTDocOf(f.RTT(S2C), false)}}
}

func jsonMessage(m *Message) *jsonMsg {
	if m == nil {
		return nil
	}
	j := &jsonMsg{Frame: int(m.Frame), Summary: m.Summary()}
	if m.Msg >= 0 {
		idx := int(m.Msg)
		j.Msg = &idx
	}
	return j
}

func jsonChanges(cs []Change) []jsonChange {
	var out []jsonChange
	for _, c := range cs {
		out = append(out, jsonChange{Path: c.Path, Old: rawOrNull(c.Old), New: rawOrNull(c.New), Note: c.Note})
	}
	return out
}

func rawOrNull(v string) json.RawMessage {
	if v == "" || !json.Valid([]byte(v)) {
		return json.RawMessage("null")
	}
	return json.RawMessage(v)
}
