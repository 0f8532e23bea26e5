package sim

import (
	"reflect"
	"testing"
)

// addInt64s reaches every count of counters and consumerCounters: adding a value filled with
// distinct numbers and subtracting it again, or subtracting it from itself, gives zero, and
// adding it to zero gives it back, whatever field it is in.
func TestAddInt64sReachesEveryCount(t *testing.T) {
	var c counters
	fill(reflect.ValueOf(&c).Elem(), new(int64))
	var sum counters
	addInt64s(&sum, &c, 1)
	if sum != c {
		t.Fatalf("0 + c = %+v, want %+v", sum, c)
	}
	sum.add(&c, 1)
	sum.add(&c, -2)
	if sum != (counters{}) {
		t.Fatalf("c + c - 2c = %+v, want zero", sum)
	}
	var cc consumerCounters
	fill(reflect.ValueOf(&cc).Elem(), new(int64))
	d := cc
	addInt64s(&d, &cc, -1)
	if d != (consumerCounters{}) || cc.busyMs == 0 {
		t.Fatalf("cc - cc = %+v (cc %+v), want zero", d, cc)
	}
}

// fill sets every int64 reachable in v to the next of 1, 2, 3, ... (unexported fields
// included, through their address).
func fill(v reflect.Value, next *int64) {
	switch v.Kind() {
	case reflect.Int64:
		*next++
		*(*int64)(v.Addr().UnsafePointer()) = *next
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), next)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), next)
		}
	}
}
