// Package htmlreport builds `bcdump report`: one self-contained HTML page
// with a session's summary, per-flow time series, ladder diagrams of the
// join handshake and of the datagrams around each error, the checksum tree
// (with a manifest), the timeline and the anomaly table.
//
// A Builder is a dissect.Sink. It keeps bounded state whatever the capture
// size: series are binned into at most MaxBins columns per flow (bins
// double in width when the capture outgrows them, keeping each column's
// RTT minimum and maximum), ladders and tables are capped with counts of
// what was left out. Page renders the collected Data as HTML; the Data is
// also embedded in the page as JSON (the golden tests compare that).
//
// It imports report/story and report/render, and dissect below them.
package htmlreport

import "github.com/bcdump/bcdump/report/story"

// Data is everything the page shows; it is embedded in the page as JSON
// (script#bcdump-data). Times are seconds since the first datagram.
type Data struct {
	Version   int              `json:"version"`
	Sources   []string         `json:"sources"`
	Filter    string           `json:"filter,omitempty"`
	Manifest  string           `json:"manifest,omitempty"`
	First     string           `json:"first"` // RFC 3339, UTC
	Duration  float64          `json:"duration"`
	Datagrams int              `json:"datagrams"`
	Servers   []story.Document `json:"servers"`

	Flows        []Flow `json:"flows"`
	FlowsOmitted int    `json:"flows_omitted"` // flows past MaxFlows (not charted)

	Ladders        []Ladder `json:"ladders"`
	LaddersOmitted int      `json:"ladders_omitted"` // error anomalies past MaxErrorLadders

	Checksums []ChecksumPlayer `json:"checksums"` // with a manifest only

	Anomalies        []AnomalyRow   `json:"anomalies"`
	AnomalyCodes     []AnomalyCode  `json:"anomaly_codes"` // one per code, the table's rows
	AnomaliesOmitted int            `json:"anomalies_omitted"`
	AnomalyCounts    map[string]int `json:"anomaly_counts"` // by severity, all of them

	frameLadder map[int]string // frame -> the id of its arrow in a ladder
}

// Flow is one client↔server flow and its series.
type Flow struct {
	ID        string   `json:"id"`
	Client    string   `json:"client"`
	Server    string   `json:"server"`
	Name      string   `json:"name,omitempty"` // the player, when the story knows it
	First     float64  `json:"first"`
	Last      float64  `json:"last"`
	Datagrams [2]int   `json:"datagrams"` // c2s, s2c
	Bytes     [2]int64 `json:"bytes"`
	Retrans   int      `json:"retransmits"`
	// RTT samples by direction of the acknowledged message (c2s, s2c), as
	// transport.RTT counts them: the counts `bcdump stats` prints.
	RTTCount  [2]int `json:"rtt_samples"`
	Anomalies [3]int `json:"anomalies"` // note, warn, error
	Series    Series `json:"series"`
	Marks     []Mark `json:"marks"`
	MarksLeft int    `json:"marks_omitted"`
	Handshake string `json:"handshake_ladder,omitempty"` // ladder id
}

// Series are a flow's binned time series, column-wise, from the flow's
// first bin on: element i is bin Start+i, which covers
// [(Start+i)*Width, (Start+i+1)*Width) seconds. Rates are per second over
// the second around the bin (rateWindow, or one bin when wider); RTT
// minimum and maximum are in milliseconds (-1: no ACK matched in the bin).
type Series struct {
	Width   float64   `json:"width"`
	Start   int       `json:"start"`
	DgC2S   []float64 `json:"dg_c2s"`
	DgS2C   []float64 `json:"dg_s2c"`
	BC2S    []float64 `json:"bytes_c2s"`
	BS2C    []float64 `json:"bytes_s2c"`
	Retrans []float64 `json:"retransmits"`
	RTTMin  []float64 `json:"rtt_min"`
	RTTMax  []float64 `json:"rtt_max"`
}

// Mark is an anomaly on a flow's time axis.
type Mark struct {
	T        float64 `json:"t"`
	Frame    int     `json:"frame"`
	Code     string  `json:"code"`
	Severity string  `json:"severity"`
}

// Ladder is a sequence diagram: one arrow per datagram of one flow.
type Ladder struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"` // handshake, error
	Flow   string `json:"flow"`
	Title  string `json:"title"`
	Player string `json:"player,omitempty"` // the client's player, when the story knows it
	// Repeats counts the ladders of the same arrows (labels, directions,
	// findings; frames and times aside) folded into this one, itself
	// included; Same are their titles.
	Repeats   int         `json:"repeats,omitempty"`
	Same      []string    `json:"same,omitempty"`
	Code      string      `json:"code,omitempty"`  // the error (kind error)
	Frame     int         `json:"frame,omitempty"` // its frame
	Datagrams []LadderDg  `json:"datagrams"`
	Complete  bool        `json:"complete"` // handshake: NewPlayerInGame seen
	Cut       bool        `json:"cut"`      // capped before its end
	Errors    []LadderErr `json:"errors,omitempty"`
}

// LadderErr is an error anomaly a ladder shows.
type LadderErr struct {
	Code  string `json:"code"`
	Frame int    `json:"frame"`
}

// LadderDg is one arrow.
type LadderDg struct {
	Frame     int         `json:"frame"`
	T         float64     `json:"t"`
	Dir       string      `json:"dir"`
	Len       int         `json:"len"`
	Msgs      []LadderMsg `json:"msgs"`
	Anomalies []string    `json:"anomalies,omitempty"`
}

// LadderMsg is one message of an arrow.
type LadderMsg struct {
	Label      string `json:"label"`
	Reliable   bool   `json:"reliable,omitempty"`
	Retransmit bool   `json:"retransmit,omitempty"`
	// AckedBy is the frame of the first ACK that cleared this message
	// (0: none in the capture; Lost then says it was never ACKed).
	AckedBy int  `json:"acked_by,omitempty"`
	Lost    bool `json:"lost,omitempty"`
	// An ACK's target: the frame and message index of the first send.
	AckFrame int `json:"ack_frame,omitempty"`
	AckMsg   int `json:"ack_msg,omitempty"`
}

// ChecksumPlayer is one flow's checksum answers against the manifest.
type ChecksumPlayer struct {
	Flow       string          `json:"flow"`
	Name       string          `json:"name,omitempty"`
	Client     string          `json:"client"`
	Mismatches int             `json:"mismatches"`
	Rounds     []ChecksumRound `json:"rounds"`
}

// ChecksumRound is one answered round.
type ChecksumRound struct {
	Round      string        `json:"round"`
	Frame      int           `json:"frame"`
	Path       string        `json:"path"` // the manifest's directory
	Filter     string        `json:"filter,omitempty"`
	Mismatches int           `json:"mismatches"`
	Dirs       []ChecksumDir `json:"dirs"`
	Error      string        `json:"error,omitempty"` // the answer did not parse
}

// ChecksumDir is one directory of an answer, mismatches first.
type ChecksumDir struct {
	Path  string         `json:"path"`
	Files []ChecksumFile `json:"files"`
}

// ChecksumFile is one file with its verdict: match, mismatch, unknown (not
// in the manifest) or missing (in the manifest, not in the answer).
type ChecksumFile struct {
	Name    string `json:"name"`
	Hash    string `json:"hash,omitempty"`
	Want    string `json:"want,omitempty"`
	Verdict string `json:"verdict"`
}

// AnomalyCode is one row of the anomaly table: a code, how many times it
// was found (all of them, listed or not) and its first occurrence.
type AnomalyCode struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Count    int    `json:"count"`
	Listed   int    `json:"listed"` // of them in anomalies
	First    int    `json:"first"`  // index in anomalies of the first; -1 none listed
}

// AnomalyRow is one anomaly of the table.
type AnomalyRow struct {
	Code     string  `json:"code"`
	Severity string  `json:"severity"`
	Frame    int     `json:"frame"`
	T        float64 `json:"t"`
	Flow     string  `json:"flow,omitempty"`
	Ladder   string  `json:"ladder,omitempty"`
	Message  string  `json:"message"`
}
