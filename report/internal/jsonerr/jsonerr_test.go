package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	var rec struct {
		Frame int    `json:"frame"`
		Name  string `json:"name"`
		List  []int  `json:"list"`
	}
	tests := []struct{ in, want string }{
		{`{"frame":"x"}`, `key "frame" must be a whole number, not a string`},
		{`{"frame":1.5}`, `key "frame" must be a whole number, not the number 1.5`},
		{`{"name":[]}`, `key "name" must be a string, not a list`},
		{`{"list":{}}`, `key "list" must be a list, not an object`},
		{`[1]`, `want an object, not a list`},
		{`{"frame":`, `the JSON ends early`},
		{`{"frame":x}`, `not valid JSON at byte 10`},
	}
	for _, tt := range tests {
		err := json.Unmarshal([]byte(tt.in), &rec)
		got := Describe(err)
		if got != tt.want || strings.Contains(got, "Go ") {
			t.Errorf("%s: %q (from %v), want %q", tt.in, got, err, tt.want)
		}
	}
}
