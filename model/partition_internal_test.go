package model

import (
	"testing"
	"unsafe"
)

// The per-offset record must stay small: memory grows with the in-flight window.
func TestRecSize(t *testing.T) {
	if s := unsafe.Sizeof(rec{}); s != 24 {
		t.Errorf("rec is %d bytes, want 24", s)
	}
}
