package query

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bcdump/bcdump/report/filter"
)

// The closed value sets are the values the JSON writer writes: every
// listed path is a string field, and every value the read goldens hold
// at those paths is listed (so a filter on it is never refused).
func TestClosedValues(t *testing.T) {
	for path, values := range closedValues {
		if typ, ok := schema.Field(path); !ok || typ != filter.String || len(values) == 0 {
			t.Errorf("%s: type %v, %v, %d values", path, typ, ok, len(values))
		}
	}
	var seen int
	for _, name := range []string{"sample.json", "openbc-session-2.json", "stock-excerpts.json", "stock-excerpts-manifest.json"} {
		f, err := os.Open(filepath.Join(testdata, "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var rec any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			walkStrings(rec, "", func(path, v string) {
				if values := closedValues[path]; values != nil {
					seen++
					if !slices.Contains(values, v) {
						t.Errorf("%s: %s is %q, not one of its values", name, path, v)
					}
				}
			})
		}
		f.Close()
	}
	if seen < 100 {
		t.Errorf("only %d values checked", seen)
	}
}

// walkStrings calls fn with every string in v and its path (arrays left
// out, as the schema's paths are).
func walkStrings(v any, path string, fn func(path, v string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkStrings(x, p, fn)
		}
	case []any:
		for _, x := range v {
			walkStrings(x, path, fn)
		}
	case string:
		fn(path, v)
	}
}
