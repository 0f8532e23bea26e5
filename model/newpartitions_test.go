package model_test

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// TestInitialStartOffsetPerVersion pins KAFKA-20742: from Kafka 4.4 a new partition of a
// topic the group already reads starts at 0; before, and for a topic new to the group, the
// start offset is left to share.auto.offset.reset.
func TestInitialStartOffsetPerVersion(t *testing.T) {
	for _, tc := range []struct {
		v     model.Version
		known bool
		want  int64
	}{
		{model.Kafka41, false, model.UnsetStartOffset},
		{model.Kafka41, true, model.UnsetStartOffset},
		{model.Kafka42, true, model.UnsetStartOffset},
		{model.Kafka43, false, model.UnsetStartOffset},
		{model.Kafka43, true, model.UnsetStartOffset},
		{model.Kafka44, false, model.UnsetStartOffset},
		{model.Kafka44, true, 0},
	} {
		if got := model.InitialStartOffset(tc.v, tc.known); got != tc.want {
			t.Errorf("InitialStartOffset(%s, known=%v) = %d, want %d", tc.v, tc.known, got, tc.want)
		}
	}
}
