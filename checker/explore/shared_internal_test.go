package explore

import (
	"fmt"
	"sync"
)

// sharedSearch is one search of ExploreShared: run once, read by every test that asks.
type sharedSearch struct {
	once sync.Once
	res  *Result
	err  error
}

// sharedSearches holds ExploreShared's searches by scope.
var sharedSearches sync.Map

// ExploreShared is Explore for tests that only read the result: a scope searched in memory
// (no budget, spill folder, deadline or stop) is searched once per test binary, and every
// test that asks for the same scope, workers included, reads the same Result; tests running
// in parallel wait for the first. A search is deterministic (TestExplorerDeterministic), so
// a repeat would decide nothing new: under -race the liveness scope's 32 098 states were
// searched by four tests. A caller must not change the Result.
func ExploreShared(sc Scope) (*Result, error) {
	if sc.Memory != 0 || sc.TempDir != "" || sc.shares != nil || sc.Stop != nil || !sc.Deadline.IsZero() {
		return Explore(sc, nil)
	}
	v, _ := sharedSearches.LoadOrStore(fmt.Sprintf("%+v", sc), &sharedSearch{})
	s := v.(*sharedSearch)
	s.once.Do(func() { s.res, s.err = Explore(sc, nil) })
	return s.res, s.err
}
