package dedup

import (
	"reflect"
	"testing"
)

// fillFields sets every field of the struct v points at to a value of its
// own (nested structs included), so that a field an encoding forgets comes
// back different.
func fillFields(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		*n++
		switch f.Kind() {
		case reflect.Struct:
			fillFields(t, f, n)
		case reflect.String:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetString(string(rune('a'+*n%26)) + "-value")
		case reflect.Int, reflect.Int64:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetInt(int64(1000 + *n))
		case reflect.Uint8, reflect.Uint32:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetUint(uint64(1 + *n%7))
		case reflect.Float64:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetFloat(0.5 + float64(*n)/1000)
		case reflect.Bool:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetBool(true)
		case reflect.Array:
			a := reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
			for j := range a.Len() {
				a.Index(j).SetUint(uint64(j + *n))
			}
		default:
			t.Fatalf("field %s of kind %s: teach fillFields and appendMatch about it", v.Type().Field(i).Name, f.Kind())
		}
	}
}

// TestFinalStore: a replaced page's match comes back from the resolve
// round's store with every field, after others were added; pages not put
// are not there; the store is empty after close.
func TestFinalStore(t *testing.T) {
	s := newFinalStore(t.TempDir())
	var ms [3]match
	for i := range ms {
		n := i * 100
		fillFields(t, reflect.ValueOf(&ms[i]).Elem(), &n)
		if err := s.put(RecordKey("0x-a0", int64(i)), &ms[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range ms {
		k := RecordKey("0x-a0", int64(i))
		got, ok, err := s.get(k)
		if err != nil || !ok || !s.has(k) {
			t.Fatalf("page %d: found %v, %v", i, ok, err)
		}
		if !reflect.DeepEqual(*got, ms[i]) {
			t.Errorf("page %d: read back\n%+v\nwant\n%+v", i, *got, ms[i])
		}
	}
	if s.has(RecordKey("0x-a0", 9)) {
		t.Error("a page never put is there")
	}
	if _, ok, err := s.get(RecordKey("0x-a0", 9)); ok || err != nil {
		t.Errorf("get of a page never put: %v, %v", ok, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if s.has(RecordKey("0x-a0", 0)) {
		t.Error("a page is there after close")
	}
}
