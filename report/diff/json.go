package diff

import (
	"encoding/json"
	"io"
	"time"

	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport"
)

// maxChangesJSON bounds the changes listed for one message in the JSON
// output; "more_changes" counts the rest.
const maxChangesJSON = 100

// The JSON document (`bcdump diff --format json`). Keys are a contract like
// those of `read --format json`: new keys may be added, none renamed.
type jsonDoc struct {
	Old         jsonSource `json:"old"`
	New         jsonSource `json:"new"`
	Equal       bool       `json:"equal"`
	Summary     Summary    `json:"summary"`
	Flows       []jsonFlow `json:"flows"`
	Differences []jsonDiff `json:"differences"`
}

type jsonSource struct {
	Name         string `json:"name"`
	Format       string `json:"format"`
	Datagrams    int    `json:"datagrams"`
	Flows        int    `json:"flows"` // client flows (game traffic), as stats counts them
	GameSpyFlows int    `json:"gamespy_flows"`
	Messages     int    `json:"messages"`
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
	RTT jsonRTTDirs `json:"rtt"`
}

type jsonRTTDirs struct {
	C2S jsonRTT `json:"c2s"`
	S2C jsonRTT `json:"s2c"`
}

// jsonRTT is one direction's RTT as stats writes it (null percentiles
// without samples).
type jsonRTT struct {
	Count   uint64   `json:"count"`
	P50Ms   *float64 `json:"p50_ms"`
	P95Ms   *float64 `json:"p95_ms"`
	MaxMs   *float64 `json:"max_ms"`
	Sampled bool     `json:"sampled"`
}

func rttOf(r transport.RTT) jsonRTT {
	j := jsonRTT{Count: r.Count, Sampled: r.Sampled}
	if r.Count > 0 {
		ms := func(d time.Duration) *float64 { v := float64(d) / float64(time.Millisecond); return &v }
		j.P50Ms, j.P95Ms, j.MaxMs = ms(r.P50), ms(r.P95), ms(r.Max)
	}
	return j
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
// summary, every flow pair, and every difference (no context).
func (r *Result) WriteJSON(w io.Writer) error {
	doc := jsonDoc{
		Old:         source(r.Old),
		New:         source(r.New),
		Equal:       r.Equal(),
		Summary:     r.Summary,
		Flows:       []jsonFlow{},
		Differences: []jsonDiff{},
	}
	for _, fd := range r.Flows {
		doc.Flows = append(doc.Flows, jsonFlow{
			Flow: fd.Index, Role: fd.Role.String(),
			Old: flowSide(fd.Old), New: flowSide(fd.New),
			Differences: fd.Differences(),
		})
		if len(fd.Addr) > 0 {
			doc.Differences = append(doc.Differences, jsonDiff{Flow: fd.Index, Op: "addresses", Changes: jsonChanges(fd.Addr)})
		}
		for d := range 2 {
			for i := range fd.Dirs[d] {
				e := &fd.Dirs[d][i]
				if e.Op == Equal {
					continue
				}
				jd := jsonDiff{Flow: fd.Index, Dir: dirNames[d], Op: e.Op.String(), Old: jsonMessage(e.Old), New: jsonMessage(e.New)}
				ch := e.Changes
				if len(ch) > maxChangesJSON {
					jd.MoreChanges = len(ch) - maxChangesJSON
					ch = ch[:maxChangesJSON]
				}
				jd.Changes = jsonChanges(ch)
				doc.Differences = append(doc.Differences, jd)
			}
		}
	}
	b, err := json.MarshalIndent(&doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(quote.JSON(b), '\n'))
	return err
}

func source(c *Conversation) jsonSource {
	s := jsonSource{Name: c.Name, Format: c.Format, Datagrams: c.Datagrams, Messages: c.Messages()}
	for _, f := range c.Flows {
		if f.Role == RoleClient {
			s.Flows++
		} else {
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
		C2S: len(f.Msgs[C2S]), S2C: len(f.Msgs[S2C]),
		RTT: jsonRTTDirs{rttOf(f.RTT(C2S)), rttOf(f.RTT(S2C))}}
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
