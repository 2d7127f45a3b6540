package settings

import (
	"reflect"
	"strings"
	"testing"
)

// Each entry of the one table points at the Settings field whose contract
// name (its json tag) is the entry's name, and every field has an entry: a
// key added to Settings but not to the table, or wired to the wrong field,
// fails here.
func TestTableNamesItsFields(t *testing.T) {
	var s Settings
	v := reflect.ValueOf(&s).Elem()
	byAddr := map[uintptr]string{}
	for i := range v.NumField() {
		tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		byAddr[v.Field(i).Addr().Pointer()] = tag
	}
	if len(table) != v.NumField() {
		t.Errorf("the table has %d keys, Settings %d fields", len(table), v.NumField())
	}
	for _, k := range table {
		if got := byAddr[reflect.ValueOf(k.field(&s)).Pointer()]; got != k.name {
			t.Errorf("key %q points at the field tagged %q", k.name, got)
		}
	}
}
