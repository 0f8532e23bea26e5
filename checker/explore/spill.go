package explore

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"sync"
)

// Storage under a memory budget (Scope.Memory). The search keeps three kinds of data that grow
// with the number of states, and each gets a share of the budget; what outgrows its share goes
// to files in a temporary directory, and the search goes on with the same result:
//
//   - the seen set (fpset.go) gets half, held in two generations (generations.go): when the
//     young one has taken half of what the runs leave it becomes the old one, and the old one
//     it replaces becomes a sorted run (diskset.go): packed in memory while the packed runs
//     take at most half the seen set's share, else written to disk (files merged in size
//     tiers); from then on a lookup that misses both generations also looks in the runs;
//   - the frontiers (frontier.go) get an eighth: a level is kept as segments of one wave each,
//     and a finished segment of the next level that does not fit is written to that level's
//     file and read back when its wave comes;
//   - the parent pointers (parents.go) get a sixteenth: the records beyond it are appended to a
//     file, read back (ReadAt) only to rebuild a counterexample's path.
//
// The rest (5/16) is left for the waves' buffers, the liveness graph and the garbage
// collector's headroom: sequential spilling of frontiers and parent records is cheap, and a
// heap kept well below the budget keeps the collector from running all the time. So that the
// headroom is kept whatever the buffers take, the seen set is also flushed when everything
// counted (Explore's memory: the stores, the waves' buffers, the disk runs' filters) passes
// 3/4 of the budget. The directory and its files are removed when Explore returns, also on an
// error.
//
// The Go runtime's soft memory limit (set by the caller, e.g. 15/16 of the budget) counts only
// the memory the runtime manages; the seen set's large tables are mapped outside it
// (allocKeys). While they are, Explore lowers the limit by their size (heapLimit), so that
// the heap and the tables together stay under the caller's limit.

// shares are the bytes each store may keep in memory, and all of them together with the
// waves' buffers (total); a negative share is unbounded. packed is the part of the seen set's
// share that its packed runs may take (diskSet.packShare; 0: none, every run is a file).
type shares struct {
	seen, frontier, parents, total int64
	packed                         int64
}

// budgetShares divides a budget of mem bytes (0: unbounded).
func budgetShares(mem int64) shares {
	if mem <= 0 {
		return shares{-1, -1, -1, -1, -1}
	}
	return shares{seen: mem / 2, frontier: mem / 8, parents: mem / 16, total: mem - mem/4, packed: mem / 4}
}

// over reports whether n bytes exceed share.
func over(n, share int64) bool { return share >= 0 && n > share }

// minFlush is the fewest fingerprints in memory flushed because the total passed its share
// (fewer would make many tiny runs while other stores are what is over).
const minFlush = 1 << 16

// offHeap is the bytes of the set's tables mapped outside the Go heap (allocKeys maps a table
// of at least hugeMin bytes on Linux, in whole huge pages).
func (s *fpSet) offHeap() int64 {
	var b int64
	for i := range s.parts {
		b += keysOffHeap(len(s.parts[i].keys))
	}
	return b
}

// heapLimit keeps the runtime's soft memory limit, when the caller set one, that much below
// the caller's value as the seen sets' tables take outside the heap (at least a quarter of
// the caller's limit is left to the heap). The limit is the process's, so the searches
// running at once in one process share it: heapLimits holds each one's tables, the limit is
// the caller's value (read when the first of them started) less all of them, and it is put
// back when the last one ends.
type heapLimit struct {
	off int64 // this search's tables outside the heap
}

// heapLimitSet is the searches running in the process and the limit it set for them.
type heapLimitSet struct {
	sync.Mutex
	running   map[*heapLimit]bool
	base, now int64 // the caller's limit, and the one set now
}

var heapLimits heapLimitSet

func newHeapLimit() *heapLimit {
	hl := &heapLimits
	hl.Lock()
	defer hl.Unlock()
	if len(hl.running) == 0 {
		hl.base = debug.SetMemoryLimit(-1)
		hl.now = hl.base
		hl.running = map[*heapLimit]bool{}
	}
	h := &heapLimit{}
	hl.running[h] = true
	return h
}

// update sets the limit for off bytes of this search's tables outside the heap.
func (h *heapLimit) update(off int64) {
	hl := &heapLimits
	hl.Lock()
	defer hl.Unlock()
	h.off = off
	hl.apply()
}

// restore ends this search's part; the last one running puts the caller's limit back.
func (h *heapLimit) restore() {
	hl := &heapLimits
	hl.Lock()
	defer hl.Unlock()
	delete(hl.running, h)
	h.off = 0
	hl.apply()
}

// apply sets the limit for the searches running (heapLimits locked).
func (hl *heapLimitSet) apply() {
	if hl.base == math.MaxInt64 {
		return
	}
	l := hl.base
	if len(hl.running) > 0 {
		var off int64
		for h := range hl.running {
			off += h.off
		}
		l = max(hl.base-off, hl.base/4)
	}
	if l != hl.now {
		debug.SetMemoryLimit(l)
		hl.now = l
	}
}

// storage is the temporary directory of one exploration and the bytes its files hold. The
// wave merge adds parent records and frontier states on two goroutines, each of which may
// spill: mu guards create, grew and remove.
type storage struct {
	mu     sync.Mutex
	parent string // where to make the directory ("": the system's)
	dir    string // made on first use
	disk   int64  // bytes in the files now
	peak   int64  // the most bytes they held at once
	seq    int
	files  map[string]int // files made, by what they hold (tests)
}

// create makes a new file in the directory.
func (st *storage) create(what string) (*os.File, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dir == "" {
		d, err := os.MkdirTemp(st.parent, "sharesim-explore-")
		if err != nil {
			return nil, fmt.Errorf("explore: spilling to disk: %w", err)
		}
		st.dir = d
	}
	st.seq++
	if st.files == nil {
		st.files = map[string]int{}
	}
	st.files[what]++
	f, err := os.Create(fmt.Sprintf("%s/%s-%d", st.dir, what, st.seq))
	if err != nil {
		return nil, fmt.Errorf("explore: spilling to disk: %w", err)
	}
	return f, nil
}

// grew records n more bytes written.
func (st *storage) grew(n int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.disk += n
	st.peak = max(st.peak, st.disk)
}

// remove closes and deletes f, which holds size bytes.
func (st *storage) remove(f *os.File, size int64) {
	if f == nil {
		return
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	st.mu.Lock()
	st.disk -= size
	st.mu.Unlock()
}

// close deletes the directory and everything in it.
func (st *storage) close() {
	if st.dir != "" {
		os.RemoveAll(st.dir)
		st.dir = ""
	}
	st.disk = 0
}

// byteSize renders a byte count with a binary unit.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
