package spcheck

import "testing"

// recFrom finds what rec finds, for offsets asked in ascending order (one walk) and out of
// order (a search), cached or not.
func TestRecFromMatchesRec(t *testing.T) {
	v := &View{Recs: []Rec{{Offset: 2}, {Offset: 3}, {Offset: 5}, {Offset: 9}}}
	for _, asks := range [][]int64{
		{0, 1, 2, 3, 4, 5, 6, 9, 10},
		{2, 5, 9},
		{9, 2, 3, 1, 5, 5, 10, 0},
		{3, 3, 2},
	} {
		j := 0
		for _, off := range asks {
			got, gok := v.recFrom(&j, off)
			want, wok := v.rec(off)
			if gok != wok || got != want {
				t.Errorf("asks %v: offset %d: recFrom %v %v, rec %v %v", asks, off, got, gok, want, wok)
			}
		}
	}
}
