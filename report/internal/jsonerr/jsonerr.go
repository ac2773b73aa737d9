// Package jsonerr says in words what is wrong with JSON that
// encoding/json rejected, without its Go wording ("cannot unmarshal string
// into Go struct field record.frame of type int").
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Describe returns a user-facing description of a decoding error.
func Describe(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && strings.HasPrefix(se.Error(), "unexpected end"):
		return "the JSON ends early"
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		want := kind(te.Type)
		if te.Field == "" {
			return fmt.Sprintf("want %s, not %s", want, value(te.Value))
		}
		return fmt.Sprintf("key %q must be %s, not %s", te.Field, want, value(te.Value))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	}
	return "not valid JSON"
}

func kind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return kind(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	}
	return "a number"
}

// value names the JSON kind encoding/json reports ("string", "number
// -1", "array", ...).
func value(v string) string {
	switch v {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "number":
		return "a number"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return "the number " + n
	}
	return v
}
