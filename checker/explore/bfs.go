package explore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
)

// Result is what one exploration found.
type Result struct {
	Scope Scope
	// States is the number of distinct states reached; Transitions the number of steps tried
	// (each checked against the invariants, also when it led to a known state).
	States      int
	Transitions int64
	// Depth is the deepest level reached (the root is level 0).
	Depth int
	// Complete is true when every reachable state within the bounds was explored.
	Complete bool
	// Bounded names the bound that stopped the search early ("depth", "states", "time" or
	// "interrupted").
	Bounded string
	// Levels are the number of states first reached at each depth (Levels[0] is the root),
	// as far as the search got; the last may be partial when the search was cut short.
	Levels  []int
	Elapsed time.Duration
	// Memory is the approximate size of the fingerprint set and frontier at their largest.
	Memory int64
	// SeenBytes is the memory of the seen set at its largest: the fingerprint tables (8
	// bytes per slot, without liveness' state ids) and its runs' memory (diskSet.bytes: the
	// packed runs, and the files' indexes, and the filters).
	SeenBytes int64
	// DiskBytes is the most the temporary files held at once (0: nothing spilled).
	DiskBytes int64
	// DiskHits is the number of transitions whose state was found in the seen set's runs on
	// disk: known, but in neither generation in memory (generations.go). Each cost a read of
	// a page of a run (a lookup of a new state is mostly answered by the runs' filters).
	// PackedHits counts those found in the runs packed in memory (diskset.go) instead.
	DiskHits, PackedHits int64
	// packedRuns counts the runs packed in memory and writtenOut those of them later written
	// to files (tests).
	packedRuns, writtenOut int
	// spillFiles counts the spill files made, by kind (seen, frontier, parents).
	spillFiles map[string]int
	// shared counts what shared insertion's merges met (tests); orderHash hashes every new
	// state's fingerprint, parent and action in id order (Scope.hashOrder, tests).
	shared    shareStats
	orderHash uint64
	// settled counts what the workers' settlePending met (tests).
	settled settleStats
	// expanding is the wall time the workers spent expanding waves, from the start of each
	// wave's expansion to its last worker's end (benchmarks: the rest of Elapsed is the
	// search's serial part, which more workers do not shorten).
	expanding time.Duration
	// Violation is the first broken invariant found, on a shortest path; nil if none.
	Violation *Found
	// Liveness is set when Scope.Liveness asked for the progress check and the search was
	// complete without a violation.
	Liveness *LivenessResult
	// LevelViolations (swarm shards) are the first violation of each invariant broken at the
	// level of the first violation, sorted by invariant.
	LevelViolations []*Found
	// Fingerprints (Scope.KeepFingerprints) are the seen set's fingerprints, sorted.
	Fingerprints []uint64
	// Findings are the documented Kafka behaviours met (Scope.Findings, and stuck states of
	// a known shape with Scope.Liveness), each on a shortest path, in KnownFindings order.
	Findings []*Found
}

// StatesPerSecond is the exploration rate.
func (r *Result) StatesPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.States) / r.Elapsed.Seconds()
}

// SeenBytesPerState is the fingerprint set's size (fingerprints only, without liveness'
// state ids) divided by the number of states.
func (r *Result) SeenBytesPerState() float64 {
	if r.States == 0 {
		return 0
	}
	return float64(r.SeenBytes) / float64(r.States)
}

// Found is a violation with the shortest path that leads to it.
type Found struct {
	Invariant string
	Message   string
	// Path is the steps from the initial state; its last step breaks the invariant.
	Path []Action
	// Finding is the name of the documented Kafka behaviour this is (KnownFindings), or "".
	Finding string
}

// Depth is the length of the counterexample.
func (f *Found) Depth() int { return len(f.Path) }

// Snapshot is how far a running exploration has got.
type Snapshot struct {
	// States is the number of distinct states seen; Transitions the steps tried.
	States      int
	Transitions int64
	// Depth is the BFS level being expanded; Frontier the states of that level.
	Depth, Frontier int
	// Memory is the bytes held by the fingerprint set, the frontiers, the parent pointers
	// and (with liveness) the graph.
	Memory int64
	// Disk is the bytes in the temporary files (frontiers, parent pointers, seen set).
	Disk    int64
	Elapsed time.Duration
	// Done is true for the last snapshot, after the search ended.
	Done bool
}

// StatesPerSecond is the rate so far.
func (s Snapshot) StatesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.States) / s.Elapsed.Seconds()
}

// Progress, if set, is called after each BFS level and, within a level, whenever
// ProgressEvery has passed since the last call (between waves of 32 768 states).
type Progress func(Snapshot)

// ProgressEvery is how often Progress is called within a level.
var ProgressEvery = time.Second

// Explore runs the breadth-first search of sc.
func Explore(sc Scope, progress Progress) (*Result, error) {
	start := time.Now()
	root, err := newHarness(&sc)
	if err != nil {
		return nil, err
	}
	workers := sc.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := &Result{Scope: sc}
	sh := budgetShares(sc.Memory)
	if sc.shares != nil {
		sh = *sc.shares
	}
	// The stores' files are removed when Explore returns, whatever the outcome (defers run
	// last in, first out: the directory goes last).
	st := &storage{parent: sc.TempDir}
	defer st.close()
	hl := newHeapLimit()
	defer hl.restore()
	set := newFPSet(1<<16, sc.Liveness)
	disk := &diskSet{st: st, packShare: sh.packed, maxPacked: sc.maxPacked}
	defer disk.close()
	pl := newParentLog(st, sh.parents, sc.Symmetry)
	defer pl.close()
	segs := &segPool{st: st, share: sh.frontier, wave: sc.waveSize}
	cur := &frontier{pool: segs}
	var nf *frontier
	defer func() {
		cur.close()
		if nf != nil {
			nf.close()
		}
	}()
	enc := root.encode(nil)
	rootKH := contextHash(enc[:root.encFrom], enc[root.encTo:])
	set.add(stateFP(rootKH, storeHash(enc[root.encFrom:root.encTo])), 0)
	if err := pl.add(^uint32(0), 0, root.perm); err != nil {
		return nil, err
	}
	if err := cur.add(append(appendStateHeader(nil, root.encFrom, root.encTo, rootKH), enc...), 0); err != nil {
		return nil, err
	}
	var g *graph
	if sc.Liveness {
		g = &graph{eoff: []uint32{0}}
		defer g.close()
	}
	lastReport := start
	res.Levels = []int{1}
	depthNow := 0 // the level being expanded
	// stopped names the wall-clock bound that has been reached ("" for none).
	stopped := func() string {
		if sc.Stop != nil {
			select {
			case <-sc.Stop:
				return "interrupted"
			default:
			}
		}
		if !sc.Deadline.IsZero() && depthNow > sc.deadlineFrom && !time.Now().Before(sc.Deadline) {
			return "time"
		}
		return ""
	}
	cutBy := ""
	findings := map[string]*Found{}
	swarm := sc.Shards > 0
	levelViolations := map[string]*Found{}
	m := &merger{set: set, g: g, pl: pl, sc: &sc, par: workers, swarm: swarm}
	// With one worker and no liveness graph (whose set holds state ids, known only in the
	// merge), the worker inserts each new state into the seen set when it makes it a
	// candidate, while the set's slot is still in the cache: the merge would insert the same
	// states in the same order (it takes the worker's chunks in order), so it only skips them.
	direct := workers == 1 && g == nil
	// With more workers (and no liveness graph, and no fingerprints to hand back exactly),
	// each worker inserts its candidates into the seen set as it makes them, with the wave's
	// tag (shared insertion: fpTable.insertShared, merger.resolveShared); the merge then
	// only settles the few fingerprints two workers met in the same wave. The tables are
	// grown for the wave beforehand (reserveShared), since they cannot grow during it.
	sharedIns := workers > 1 && workers <= waveTags && g == nil && !(sc.KeepFingerprints && sc.MaxStates > 0) && !sc.noSharedInsert

	// The successor memo (memo.go): one shared by the workers, written between waves, and
	// each worker's own for the contexts it meets during a wave.
	var shared *memo
	if sc.StepOrderSeed == 0 && !sc.noMemo {
		ring := int64(memoRingMax)
		if sh.total >= 0 {
			ring = min(ring, sh.total/16)
		}
		if ring < memoRingMin {
			ring = 0
		}
		if sc.memoRing > 0 {
			ring = sc.memoRing
		}
		shared = newMemo(ring)
		defer shared.free()
	}
	pool := make([]*worker, workers)
	for i := range pool {
		pool[i] = &worker{base: root.clone(), h: root.clone(), cfg: &root.cfg, sc: &sc, set: set, disk: disk, live: g != nil,
			recent: new([recentSlots]uint64)}
		if shared != nil {
			pool[i].memo, pool[i].shared = newWaveMemo(), shared
			defer pool[i].memo.free()
			pool[i].ss, pool[i].cc = root.clone().store, newCommitCache()
			defer pool[i].cc.free()
		}
	}
	for _, w := range pool {
		for _, o := range pool {
			if o != w && o.memo != nil {
				w.peers = append(w.peers, o.memo)
			}
		}
	}
	// Each level is expanded in waves (its segments): the workers expand a wave's chunks in
	// parallel (chunkBounds), then the chunks are merged in order. Merging after every wave
	// keeps the buffered candidates small; merging in order keeps the result independent of
	// the number of workers and of where the data is kept.
	//
	// With shared insertion the last step of a wave's merge (the new states' ids, parent
	// records and places in the next frontier: merger.appendParallel) runs while the next
	// wave expands, which reads none of it; so the waves' candidates alternate between two
	// buffers, and the merge of a wave finishes before the next wave's merge starts.
	outsBuf := [2][]chunkOut{make([]chunkOut, waveStates/minChunk), nil}
	if sharedIns {
		outsBuf[1] = make([]chunkOut, waveStates/minChunk)
	}
	wave := 0
	var bounds []int
	var readBuf level
	memory := func() int64 {
		b := set.bytes() + disk.bytes() + segs.mem + readBuf.bytes() + pl.memBytes() + g.bytes()
		for _, outs := range outsBuf {
			for i := range outs {
				o := &outs[i]
				b += int64(cap(o.arena)) + int64(cap(o.cands))*int64(unsafe.Sizeof(cand{})) + int64(cap(o.efps))*8
			}
		}
		for _, w := range pool {
			b += w.memo.bytes() + w.cc.bytes() + int64(cap(w.pend))*int64(unsafe.Sizeof(pendingFP{})) + int64(cap(w.sel))*4
		}
		return b + m.bytes() + shared.bytes()
	}
	for depth := 1; cur.n > 0; depth++ {
		if sc.MaxDepth > 0 && depth > sc.MaxDepth {
			res.Bounded = "depth"
			break
		}
		nf = &frontier{pool: segs}
		depthNow = depth
		full := false
		for k := 0; k < len(cur.segs) && !full && cutBy == "" && (res.Violation == nil || swarm); k++ {
			fr, err := cur.load(k, &readBuf)
			if err != nil {
				return nil, err
			}
			outs := outsBuf[wave%2]
			if sharedIns {
				wave++
			}
			bounds = chunkBounds(bounds[:0], len(fr.ids), workers)
			nChunks := len(bounds) - 1
			for i := range outs[:nChunks] {
				o := &outs[i]
				*o = chunkOut{cands: o.cands[:0], arena: o.arena[:0], efps: o.efps[:0], ecount: o.ecount[:0], goal: o.goal[:0],
					finds: o.finds[:0], findParents: o.findParents[:0], viols: o.viols[:0], violParents: o.violParents[:0]}
			}
			if direct {
				// One worker puts its new states into the seen set itself, as many as the
				// merge would still add (merge.go).
				pool[0].directRoom = -1
				if sc.MaxStates > 0 {
					pool[0].directRoom = max(sc.MaxStates-pl.len(), 0)
				}
			}
			if sharedIns {
				m.reserveShared(pool, len(fr.ids))
			}
			// The last wave's appends (merger.appendPending) run beside this wave's expansion.
			var appended chan error
			if m.pending != nil {
				m.stats.overlapped++
				appended = make(chan error, 1)
				go func() { appended <- m.appendPending() }()
			}
			expandFrom := time.Now()
			var next atomic.Int64
			var wg sync.WaitGroup
			for _, w := range pool {
				wg.Add(1)
				go func(w *worker) {
					defer wg.Done()
					for {
						c := int(next.Add(1) - 1)
						if c >= nChunks {
							return
						}
						w.run(fr, bounds[c], bounds[c+1], &outs[c])
					}
				}(w)
			}
			wg.Wait()
			res.expanding += time.Since(expandFrom)
			if appended != nil {
				if err := <-appended; err != nil {
					return nil, err
				}
			}
			cur.release(k)
			if sharedIns {
				for p := range set.parts {
					n := 0
					for _, w := range pool {
						n, w.added[p] = n+w.added[p], 0
					}
					set.parts[p].filled(n)
					set.n += n
				}
			}
			for ci := range outs[:nChunks] {
				o := &outs[ci]
				res.Transitions += o.transitions
				res.DiskHits += o.diskHits
				res.PackedHits += o.packedHits
				if o.err != nil {
					return nil, o.err
				}
				if o.found != nil && res.Violation == nil {
					res.Violation = o.found
					res.Violation.Path = realPath(pl, sc.Members, o.foundParent, o.found.Path[0])
					res.Violation.Message = realMessage(&sc, res.Violation)
				}
				for i, vf := range o.viols {
					if levelViolations[vf.Invariant] == nil {
						vf.Path = realPath(pl, sc.Members, o.violParents[i], vf.Path[0])
						vf.Message = realMessage(&sc, vf)
						levelViolations[vf.Invariant] = vf
					}
				}
				for i, fd := range o.finds {
					if findings[fd.Finding] == nil {
						fd.Path = realPath(pl, sc.Members, o.findParents[i], fd.Path[0])
						fd.Message = realMessage(&sc, fd)
						findings[fd.Finding] = fd
					}
				}
			}
			if sh.seen >= 0 {
				set.limit(max(sh.seen-disk.bytes()-g.bytes(), 1))
			}
			// The shared memo takes over the wave's entries while the wave is merged (the two
			// touch nothing in common).
			absorbed := make(chan struct{})
			go func() {
				defer close(absorbed)
				if shared != nil {
					for _, w := range pool {
						shared.absorb(w.memo)
					}
				}
			}()
			full, err = m.merge(outs[:nChunks], depth, nf, sharedIns)
			<-absorbed
			if err != nil {
				return nil, err
			}
			if pl.err != nil {
				return nil, pl.err
			}
			if g != nil && !full && res.Violation == nil {
				if err := g.addWave(set, outs[:nChunks]); err != nil {
					return nil, err
				}
			}
			res.SeenBytes = max(res.SeenBytes, set.slots()*8+disk.bytes())
			mem := memory()
			res.Memory = max(res.Memory, mem)
			// The disk part's index and filters count against the seen set's share too; and
			// when the young generation passes half of what is left, or all that is counted
			// passes the share, the seen set makes room (generations.go).
			// With liveness the graph counts against that share until it spills, and it
			// spills (livespill.go) before the set first makes room.
			seenOver := youngOver(set, sh.seen, disk.bytes(), g.bytes()) || set.held() || over(set.bytes()+disk.bytes()+g.bytes(), sh.seen)
			if seenOver || set.len() >= minFlush && over(mem, sh.total) {
				if g != nil && !g.spilled() {
					if err := g.spill(st, set); err != nil {
						return nil, err
					}
				}
				if err := rotate(disk, set, !sc.oneGeneration && (seenOver || set.old > 0)); err != nil {
					return nil, err
				}
			}
			off := set.offHeap() + disk.offHeap() + shared.offHeap()
			for _, w := range pool {
				off += w.memo.offHeap() + w.cc.offHeap()
			}
			hl.update(off)
			cutBy = stopped()
			if progress != nil && time.Since(lastReport) >= ProgressEvery {
				lastReport = time.Now()
				progress(Snapshot{States: pl.len(), Transitions: res.Transitions, Depth: depth, Frontier: cur.n,
					Memory: mem, Disk: st.disk, Elapsed: time.Since(start)})
			}
		}
		if err := m.appendPending(); err != nil {
			return nil, err
		}
		if pl.err != nil {
			return nil, pl.err
		}
		if err := nf.finish(); err != nil {
			return nil, err
		}
		if nf.n > 0 {
			res.Depth = depth
			res.Levels = append(res.Levels, nf.n)
		}
		cur.close()
		cur, nf = nf, nil
		if progress != nil {
			lastReport = time.Now()
			progress(Snapshot{States: pl.len(), Transitions: res.Transitions, Depth: depth, Frontier: cur.n,
				Memory: res.Memory, Disk: st.disk, Elapsed: time.Since(start)})
		}
		if res.Violation != nil {
			break
		}
		if full {
			res.Bounded = "states"
			break
		}
		if cutBy != "" && cur.n > 0 {
			res.Bounded = cutBy
			break
		}
	}
	res.States = pl.len()
	res.Complete = res.Violation == nil && res.Bounded == ""
	cur.close()
	if g != nil && res.Complete {
		if res.Liveness, err = g.check(&sc, pl, findings); err != nil {
			return nil, err
		}
		if pl.err != nil {
			return nil, pl.err
		}
		res.Memory = max(res.Memory, set.bytes()+pl.memBytes()+g.bytes())
	}
	for _, kf := range KnownFindings {
		if f := findings[kf.Name]; f != nil {
			res.Findings = append(res.Findings, f)
		}
	}
	for _, f := range levelViolations {
		res.LevelViolations = append(res.LevelViolations, f)
	}
	sort.Slice(res.LevelViolations, func(i, j int) bool { return res.LevelViolations[i].Invariant < res.LevelViolations[j].Invariant })
	if sc.KeepFingerprints {
		all, err := disk.appendAll(nil)
		if err != nil {
			return nil, err
		}
		res.Fingerprints = append(all, set.sorted()...)
		slices.Sort(res.Fingerprints)
	}
	res.DiskBytes, res.spillFiles, res.shared, res.orderHash = st.peak, st.files, m.stats, m.orderHash
	res.packedRuns, res.writtenOut = disk.packed, disk.writtenOut
	for _, w := range pool {
		res.settled.pending += w.settled.pending
		res.settled.twice += w.settled.twice
		res.settled.contested += w.settled.contested
	}
	res.Elapsed = time.Since(start)
	if progress != nil {
		progress(Snapshot{States: res.States, Transitions: res.Transitions, Depth: res.Depth, Memory: res.Memory,
			Elapsed: res.Elapsed, Done: true})
	}
	return res, nil
}

// minChunk is the fewest states in a chunk of a wave (but its last).
const minChunk = 128

// chunkBounds appends to b the bounds of the chunks a wave of n states is cut into for the
// workers, from 0 to n: each chunk takes 1/(2·workers) of the states still left, at least
// minChunk. Big chunks first keep the workers apart in the frontier, where neighbouring
// states share many successors (two workers that meet one in the same wave both make it a
// candidate); small ones last keep them busy until the wave's end. The merge takes the
// chunks in order, so the result does not depend on where they are cut.
func chunkBounds(b []int, n, workers int) []int {
	b = append(b, 0)
	for lo := 0; lo < n; {
		lo = min(n, lo+max(minChunk, (n-lo)/(2*workers)))
		b = append(b, lo)
	}
	return b
}

type cand struct {
	fp       fp
	parent   uint32
	act      Action
	from, to uint32
	perm     uint8
	share    uint8 // with shared insertion, how the worker left it in the seen set (shareInserted...)
}

// How a worker that inserts its candidates into the seen set during the wave (shared insertion,
// worker.tag) left a candidate's fingerprint there; merger.resolveShared reads it.
const (
	shareInserted  = 1 + iota // this candidate put it there
	shareContested            // another worker had put it there in this wave (or in an earlier one with the same tags)
	shareDeferred             // not put there: the worker had no room left in its partition
)

// chunkOut is what a worker produced for one chunk of the frontier, in order.
type chunkOut struct {
	cands       []cand
	direct      int // the first direct cands are in the seen set already (worker.insert)
	arena       []byte
	transitions int64
	diskHits    int64  // Result.DiskHits
	packedHits  int64  // Result.PackedHits
	found       *Found // Path holds only the last action until merged
	foundParent uint32
	err         error
	// With liveness: for each expanded state in order, whether it is settled and how many
	// of the fingerprints in efps are its fault-free successors.
	goal   []bool
	ecount []uint32
	efps   []fp
	// finds are the first transition matching each finding in this chunk (Path holds only
	// the last action until merged), findParents their source states.
	finds       []*Found
	findParents []uint32
	// viols are, with swarm shards, the first violation of each invariant in this chunk.
	viols       []*Found
	violParents []uint32
}

// worker expands states on one goroutine.
type worker struct {
	base *harness // the state being expanded
	h    *harness // scratch: the base plus one action
	cfg  *model.Config
	sc   *Scope
	set  *fpSet
	disk *diskSet // the seen set's part on disk, read only while a wave expands
	page pageBuf
	prev spcheck.View
	cur  spcheck.View
	acts []Action
	buf  []byte
	st   spcheck.Step
	live bool // record the fault-free edges and settled states for the liveness check
	// tag is the worker's tag in this wave when the workers insert their candidates into the
	// seen set themselves (shared insertion, fpTable.insertShared; 0: the merge inserts them,
	// or with one worker, insert does), tagLo to tagHi the tags of the wave's workers; room[p]
	// is how many more the worker may put into partition p this wave, added[p] how many it
	// put there. contested: the last lookup (known) found the state with another worker's tag
	// of this wave.
	tag, tagLo, tagHi uint64
	room              [1 << partBits]int
	added             [1 << partBits]int
	contested         bool
	// recent holds fingerprints this worker met lately (direct-mapped, the last one per
	// slot): states already in the set, or candidates it made. Either is not new for a later
	// step of the same worker: a candidate is merged before the next wave, and within a wave
	// the worker's chunks come in candidate order, so its earlier candidate is the one the
	// merge keeps. A hit spares the set's probe and, for a state reached twice in a wave, a
	// second candidate with its consistency check and copy.
	recent *[recentSlots]uint64
	// diskHits and packedHits count the states found in the seen set's files and in its
	// packed runs (Result.DiskHits, Result.PackedHits).
	diskHits, packedHits int64
	// maybe is, for the last step's child when the seen set in memory does not hold it, which
	// runs on disk may (diskSet.filters; 0: it is new). pend are the chunk's candidates made
	// so far whose maybe was not 0, sel settle's scratch: the worker looks them up on disk
	// together when the chunk ends (settlePending), and until then they are not in the seen set.
	maybe   uint64
	pend    []pendingFP
	sel     []int32
	settled settleStats
	// directRoom is how many new states a single worker still inserts into the seen set
	// itself this wave (insert; -1: no bound, 0: none, the merge inserts them).
	directRoom int
	// finding is the finding the last step matched (Scope.Findings), findingV its violation.
	finding  string
	findingV *spcheck.Violation
	// memo remembers the successors of the contexts this worker expanded in the current
	// wave, shared those of the contexts expanded in earlier waves by every worker (memo.go;
	// nil: off; shared does not change while a wave expands).
	memo   *memo
	shared *memo
	peers  []*memo     // the other workers' memos for the wave (read with lookupPeer)
	kids   []byte      // the stored states of remembered commits' children, back to back
	kidv   []kid       // by remembered action: what the second pass needs
	cx     []kidCommit // the remembered commits, in order
	nx     memoAct     // scratch: a new child's action read again
	// baseHT is the storeHash of the decoded state's stored state; kh the contextHash of the
	// last step's child.
	baseHT, kh uint64
	// ss and sw are scratch for a remembered commit: the parent's stored state and the write.
	ss        *model.StateStore
	sw        model.Write
	wenc, sig []byte
	res       []byte
	cc        *commitCache
	// inconsistent: the last step's child failed the consistency check (only a new child's
	// failure is reported; the memo then takes the step anew).
	inconsistent bool
}

func (w *worker) run(fr *level, lo, hi int, out *chunkOut) {
	w.pend = w.pend[:0] // a chunk that failed may have left some
	hits, packedHits := w.diskHits, w.packedHits
	defer func() {
		out.diskHits, out.packedHits = out.diskHits+w.diskHits-hits, out.packedHits+w.packedHits-packedHits
	}()
	// With the memo, the shared memo's lookups are fetched ahead: while state i is expanded,
	// the index bucket of state i+2's context and the entry its bucket points to for state
	// i+1's (each a cache miss otherwise). ks holds the context hashes of states i to i+2.
	var ks [3]uint64
	mm := w.shared
	if mm != nil && lo < hi {
		ks[lo%3] = contextOf(fr, lo)
		if lo+1 < hi {
			ks[(lo+1)%3] = contextOf(fr, lo+1)
			mm.prefetchBucket(ks[(lo+1)%3])
		}
	}
	for i := lo; i < hi; i++ {
		if mm != nil {
			if i+2 < hi {
				k := contextOf(fr, i+2)
				ks[(i+2)%3] = k
				mm.prefetchBucket(k)
			}
			if i+1 < hi {
				mm.prefetchEntry(ks[(i+1)%3])
			}
		}
		parent := fr.arena[fr.offs[i]:fr.offs[i+1]]
		if err := w.expand(parent, fr.ids[i], ks[i%3], out); err != nil {
			out.err = err
			return
		}
	}
	if err := w.settlePending(out); err != nil {
		out.err = err
	}
}

// contextOf is the contextHash of state i of the frontier's wave (its entry carries it).
func contextOf(fr *level, i int) uint64 {
	return binary.LittleEndian.Uint64(fr.arena[fr.offs[i]:])
}

// expand expands one state of the frontier (its entry: header and encoding); k is its
// context's hash (with the memo).
func (w *worker) expand(entry []byte, pid uint32, k uint64, out *chunkOut) error {
	parent, sFrom, sTo, _ := splitState(entry)
	mm := w.memo
	if mm != nil {
		sp, rest := parent[:sFrom], parent[sTo:]
		// Most contexts were met in an earlier wave: the shared memo first.
		e := w.shared.lookup(k, sp, rest)
		if e == nil {
			e = mm.lookup(k, sp, rest)
		}
		for _, o := range w.peers {
			if e != nil {
				break
			}
			e = o.lookupPeer(k, sp, rest)
		}
		if e != nil {
			return w.expandRemembered(readEntry(e), parent, sFrom, sTo, pid, out)
		}
		mm.begin(k, sp, rest)
	}
	base, h := w.base, w.h
	if err := base.decode(parent); err != nil {
		return err
	}
	w.baseHT = storeHash(parent[sFrom:sTo])
	w.prev.Capture(base.sp)
	w.acts = base.actions(&w.prev, w.acts[:0])
	if seed := w.sc.StepOrderSeed; seed != 0 {
		// Swarm diversity: this state's steps in an order drawn from the seed and the state.
		x := uint64(fingerprint(parent)) ^ seed
		for i := len(w.acts) - 1; i > 0; i-- {
			x += 0x9e3779b97f4a7c15
			z := (x ^ x>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			z ^= z >> 31
			j := int(z % uint64(i+1))
			w.acts[i], w.acts[j] = w.acts[j], w.acts[i]
		}
	}
	accepted := base.accepted
	acceptedFn := func(off int64) bool { return off >= 0 && off < 64 && accepted&(1<<uint(off)) != 0 }
	edges0 := len(out.efps)
	if w.live {
		settled := base.settled(&w.prev)
		out.goal = append(out.goal, settled)
		if mm != nil {
			mm.settle = settled
		}
	}
	for _, a := range w.acts {
		h.copyFrom(base)
		commit := a.kind() == actCommit
		remember := mm != nil && (!a.storeStep() || commit)
		var leaderEpoch, stateEpoch int32
		var start int64
		if remember && commit {
			// What the coordinator's answer depends on besides the write (commitSig).
			wr, ok := h.sp.OutstandingWrite(h.writeID(a.b()))
			if ok {
				w.wenc = model.AppendWriteState(w.wenc[:0], wr)
			}
			remember = ok
			leaderEpoch, stateEpoch, start = h.store.LeaderEpoch(), h.store.StateEpoch(), h.store.StartOffset()
		}
		v, err := w.take(a, pid, acceptedFn, remember, out)
		if err != nil {
			return err
		}
		switch {
		case mm == nil:
		case !remember || v != nil || w.finding != "" || w.inconsistent:
			mm.take(a)
		case commit:
			w.sig = commitSig(w.sig[:0], leaderEpoch, stateEpoch, h.store.StartOffset() < start)
			mm.commitChild(a, h.perm, w.buf, h.encFrom, h.encTo, w.kh, w.wenc, w.sig, h.storeDead())
		default:
			mm.child(a, h.perm, w.buf, h.encFrom, h.encTo, w.kh)
		}
	}
	if w.live {
		out.ecount = append(out.ecount, uint32(len(out.efps)-edges0))
	}
	if mm != nil {
		mm.commit()
	}
	return nil
}

// take takes step a from the decoded state (h a copy of it) and records the transition in
// out; it returns the violation the step met, if any. remember: the memo is to remember the
// child, so its consistency is checked even when it is not new (memo.ok is cleared when it
// fails; only a new child's failure is reported).
func (w *worker) take(a Action, pid uint32, acceptedFn func(int64) bool, remember bool, out *chunkOut) (*spcheck.Violation, error) {
	h := w.h
	v, f, isNew, err := w.step(a, acceptedFn, remember)
	if w.finding != "" {
		known := false
		for _, fd := range out.finds {
			known = known || fd.Finding == w.finding
		}
		if !known {
			out.finds = append(out.finds, &Found{Invariant: w.findingV.Invariant, Message: w.findingV.Msg, Path: []Action{a}, Finding: w.finding})
			out.findParents = append(out.findParents, pid)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("explore: %s: %w", a.Describe(w.sc), err)
	}
	out.transitions++
	if v != nil {
		if out.found == nil {
			out.found = &Found{Invariant: v.Invariant, Message: v.Msg, Path: []Action{a}}
			out.foundParent = pid
		}
		if w.sc.Shards > 0 {
			known := false
			for _, vf := range out.viols {
				known = known || vf.Invariant == v.Invariant
			}
			if !known {
				out.viols = append(out.viols, &Found{Invariant: v.Invariant, Message: v.Msg, Path: []Action{a}})
				out.violParents = append(out.violParents, pid)
			}
		}
		return v, nil
	}
	if w.live && a.recovery() {
		out.efps = append(out.efps, f)
	}
	if isNew {
		share := w.insert(f, out)
		from := uint32(len(out.arena))
		out.arena = appendStateHeader(out.arena, h.encFrom, h.encTo, w.kh)
		out.arena = append(out.arena, w.buf...)
		out.cands = append(out.cands, cand{fp: f, parent: pid, act: a, from: from, to: uint32(len(out.arena)), perm: h.perm, share: share})
		w.pending(f, out)
	}
	return nil, nil
}

// expandRemembered expands a state whose context the memo remembers (me): each child of a
// step that leaves the coordinator alone is its remembered parts with the parent's stored
// state (parent[sFrom:sTo]) between them; a commit's child, when the coordinator answers as
// remembered, has the stored state the write makes of the parent's between them; every other
// step is taken anew from the decoded state. A remembered child's fingerprint comes from its
// remembered context hash and its stored state's hash (stateFP), and its encoding is put
// together only when it is new.
func (w *worker) expandRemembered(me memoEntry, parent []byte, sFrom, sTo int, pid uint32, out *chunkOut) error {
	psp, store, prest := parent[:sFrom], parent[sFrom:sTo], parent[sTo:]
	hT := storeHash(store)
	// First every child's fingerprint, its slot in the seen set prefetched, so that the
	// lookups below find their lines on the way.
	w.kids, w.kidv, w.cx = w.kids[:0], w.kidv[:0], w.cx[:0]
	it := me
	anyTake := false
	for i := 0; i < it.n; i++ {
		at := int32(len(me.b) - len(it.b))
		a, kind, kh := it.skim()
		k := kid{a: a, at: at, sfrom: -1}
		switch kind {
		case memoChild:
			k.f = stateFP(kh, hT)
		case memoCommit:
			// Its stored state after the others' fingerprints: meanwhile its slot in the
			// commit cache is on its way.
			whole := memoEntry{b: me.b[at:]}
			w.cx = append(w.cx, kidCommit{})
			c := &w.cx[len(w.cx)-1]
			whole.read(&c.x)
			c.key = commitKey(hT, c.x.wenc, c.x.dead)
			w.cc.prefetch(c.key)
			k.commit, k.f = true, fp(kh)
		default:
			anyTake, k.take = true, true
		}
		if !k.take && !k.commit {
			w.prefetchSeen(k.f)
		}
		w.kidv = append(w.kidv, k)
	}
	for i, c := 0, 0; i < len(w.kidv); i++ {
		k := &w.kidv[i]
		if !k.commit {
			continue
		}
		x := &w.cx[c]
		c++
		res, hRes, ok, err := w.commitOf(store, x.key, &x.x)
		if err != nil {
			return err
		}
		if !ok {
			anyTake, k.take = true, true
			continue
		}
		k.sfrom = int32(len(w.kids))
		w.kids = append(w.kids, res...)
		k.sto = int32(len(w.kids))
		k.f = stateFP(uint64(k.f), hRes)
		w.prefetchSeen(k.f)
	}
	var acceptedFn func(int64) bool
	if anyTake {
		base := w.base
		if err := base.decode(parent); err != nil {
			return err
		}
		w.baseHT = hT
		w.prev.Capture(base.sp)
		accepted := base.accepted
		acceptedFn = func(off int64) bool { return off >= 0 && off < 64 && accepted&(1<<uint(off)) != 0 }
	}
	if w.live {
		out.goal = append(out.goal, me.settled)
	}
	edges0 := len(out.efps)
	for i := range w.kidv {
		k := &w.kidv[i]
		if k.take {
			w.h.copyFrom(w.base)
			if _, err := w.take(k.a, pid, acceptedFn, false, out); err != nil {
				return err
			}
			continue
		}
		f := k.f
		out.transitions++
		slot := &w.recent[uint64(f)&(recentSlots-1)]
		seen, err := w.seen(f)
		if err != nil {
			return fmt.Errorf("explore: %s: %w", k.a.Describe(w.sc), err)
		}
		*slot = uint64(f)
		if w.live && k.a.recovery() {
			out.efps = append(out.efps, f)
		}
		if seen {
			continue
		}
		share := w.insert(f, out)
		// New: its encoding, read again from the entry.
		again := memoEntry{b: me.b[k.at:]}
		x := &w.nx
		again.read(x)
		st := store
		if k.sfrom >= 0 {
			st = w.kids[k.sfrom:k.sto]
		}
		from := uint32(len(out.arena))
		n := x.sp.size()
		out.arena = appendStateHeader(out.arena, n, n+len(st), x.kh)
		out.arena = x.rest.apply(append(x.sp.apply(out.arena, psp), st...), prest)
		out.cands = append(out.cands, cand{fp: f, parent: pid, act: x.a, from: from, to: uint32(len(out.arena)), perm: x.perm, share: share})
		w.pending(f, out)
	}
	if w.live {
		out.ecount = append(out.ecount, uint32(len(out.efps)-edges0))
	}
	return nil
}

// commitOf is the stored state a remembered commit x makes of the parent's stored state st
// (key: their commitKey) and its storeHash; ok is false when the coordinator answers otherwise than
// remembered (the step is then taken anew).
func (w *worker) commitOf(st []byte, key uint64, x *memoAct) (res []byte, hRes uint64, ok bool, err error) {
	sig, res, hRes, hit := w.cc.get(key, st, x.wenc, x.dead)
	if !hit {
		ss := w.ss
		if _, err := ss.DecodeState(st); err != nil {
			return nil, 0, false, err
		}
		if _, err := model.DecodeWriteState(x.wenc, &w.sw); err != nil {
			return nil, 0, false, err
		}
		leaderEpoch, stateEpoch, start := ss.LeaderEpoch(), ss.StateEpoch(), ss.StartOffset()
		_ = ss.Write(&w.sw) // the answer follows from the signature
		w.sig = commitSig(w.sig[:0], leaderEpoch, stateEpoch, ss.StartOffset() < start)
		if x.dead {
			w.res = ss.AppendEpochs(w.res[:0])
		} else {
			w.res = ss.AppendState(w.res[:0])
		}
		sig, res, hRes = w.sig, w.res, storeHash(w.res)
		w.cc.put(key, st, x.wenc, x.dead, sig, res, hRes)
	}
	return res, hRes, bytes.Equal(sig, x.sig), nil
}

// prefetchSeen starts fetching what looking f up in the seen set will read first: its slot in
// memory and its filter word in each run on disk.
func (w *worker) prefetchSeen(f fp) {
	prefetch(w.set.slotAddr(f))
	w.disk.prefetch(uint64(f))
}

// known reports whether f is a known state as far as the worker's recent fingerprints and the
// seen set in memory tell; with shared insertion it sets contested when another worker made f
// a candidate in this wave (f is then not known: the merge decides which candidate is new).
// A fingerprint with the worker's own tag is known: its candidate made earlier in the wave
// comes first.
func (w *worker) known(f fp) bool {
	w.contested = false
	if w.recent[uint64(f)&(recentSlots-1)] == uint64(f) {
		return true
	}
	ok, tag := w.set.lookup(f)
	if ok && w.tag != 0 && tag != w.tag && tag >= w.tagLo && tag <= w.tagHi {
		w.contested = true
		return false
	}
	return ok
}

// insert puts a new state's fingerprint into the seen set when the worker does that itself,
// and returns how (cand.share). With shared insertion (tag set) it inserts f with the wave's
// tag while the partition has room for it. A single worker (directRoom: how many more it may;
// the merge inserts the rest) inserts it plainly and counts it in out.direct.
func (w *worker) insert(f fp, out *chunkOut) uint8 {
	if w.maybe != 0 {
		// It may be on disk: settlePending inserts it if not. A single worker keeps room for it
		// (its candidate counts among the direct ones).
		if w.tag == 0 && w.directRoom != 0 {
			w.directRoom--
			out.direct++
		}
		return 0
	}
	if w.tag != 0 {
		p := uint64(f) >> tagShift
		switch {
		case w.contested:
			return shareContested
		case w.room[p] == 0:
			return shareDeferred
		}
		if !w.set.parts[p].insertShared(f, w.tag) {
			return shareContested // another worker put it there since known
		}
		w.room[p]--
		w.added[p]++
		return shareInserted
	}
	if w.directRoom == 0 {
		return 0
	}
	w.set.add(f, 0)
	w.directRoom--
	out.direct++
	return 0
}

// seen reports whether f is a known state: in the worker's recent fingerprints, the seen set
// in memory (known) or, when that does not hold it, on disk. Only a fingerprint that some run's
// filter lets pass can be on disk; for such a one seen leaves worker.maybe set and reports it
// as not seen, and settlePending looks it up when the chunk ends (with Scope.syncDisk, in tests,
// it is looked up at once, as it was before).
func (w *worker) seen(f fp) (bool, error) {
	w.maybe = 0
	seen := w.known(f)
	if seen || w.contested || w.disk.empty() {
		return seen, nil
	}
	if !w.sc.syncDisk {
		w.maybe = w.disk.filters(uint64(f))
		return false, nil
	}
	r, err := w.disk.holder(uint64(f), &w.page)
	if r != nil {
		w.countHit(r.pk != nil)
	}
	return r != nil, err
}

// countHit counts a state found in the seen set's runs: in a packed one or in a file.
func (w *worker) countHit(packed bool) {
	if packed {
		w.packedHits++
	} else {
		w.diskHits++
	}
}

// pending notes the candidate just made (the last of out.cands) for settlePending when its
// fingerprint may be on disk.
func (w *worker) pending(f fp, out *chunkOut) {
	if w.maybe != 0 {
		w.pend = append(w.pend, pendingFP{f: uint64(f), runs: w.maybe, cand: int32(len(out.cands) - 1)})
	}
}

// settlePending looks the chunk's candidates that may be on disk (worker.pend) up there
// together (diskSet.settle), drops those found and does for the others what insert does for a
// candidate known to be new when it is made. A state met twice in the chunk, or in an earlier
// chunk of the same worker, may have two such candidates: the later one is dropped when the
// set already holds the earlier one's fingerprint (a single worker's, or with the worker's own
// tag), and otherwise left to the merge, which drops every candidate of a fingerprint but the
// first in candidate order (a single worker's second candidate past its room; with shared
// insertion, two of one worker's candidates that another worker's contests). So the merge may
// get a few more candidates than looking each up on disk at once made, never a state on disk,
// and it decides the same new states in the same order.
//
// A candidate found on disk has had the consistency check of a new state (worker.check): it
// passes, since every state in the seen set passed it when it was new (or is the root, or a
// memo's child, whose consistency its context decides).
func (w *worker) settlePending(out *chunkOut) error {
	if len(w.pend) == 0 {
		return nil
	}
	var err error
	if w.sel, err = w.disk.settle(w.pend, w.sel, &w.page); err != nil {
		return err
	}
	w.maybe = 0 // insert (insertSettled) is to insert now
	w.settled.pending += len(w.pend)
	pi, kept, direct := 0, 0, 0
	for k := range out.cands {
		cd := out.cands[k]
		keep := true
		if pi < len(w.pend) && int(w.pend[pi].cand) == k {
			p := &w.pend[pi]
			pi++
			switch {
			case p.onDisk:
				keep = false
				w.countHit(p.packed)
			case w.tag != 0:
				cd.share, keep = w.insertSettled(cd.fp, out)
				if cd.share == shareContested {
					w.settled.contested++
				}
			case k < out.direct: // room was kept for it
				keep = w.set.add(cd.fp, 0)
			}
			if !keep && !p.onDisk {
				w.settled.twice++
			}
		}
		if keep {
			if k < out.direct {
				direct++
			}
			out.cands[kept] = cd
			kept++
		}
	}
	out.cands, out.direct = out.cands[:kept], direct
	w.pend = w.pend[:0]
	return nil
}

// settleStats counts, for tests, the candidates settlePending met: all of them, those dropped
// as second candidates of a fingerprint, and those found contested.
type settleStats struct {
	pending, twice, contested int
}

// insertSettled is insert, with shared insertion, for a candidate found not to be on disk when
// its chunk ends: the set is looked at again (known without the recent fingerprints, which hold
// f since the step), and the candidate is not kept when the set holds f with the worker's own
// tag (its earlier candidate of f is the first; no other tag but a wave worker's can have come
// since the step).
func (w *worker) insertSettled(f fp, out *chunkOut) (uint8, bool) {
	ok, tag := w.set.lookup(f)
	w.contested = ok && tag != w.tag && tag >= w.tagLo && tag <= w.tagHi
	if ok && !w.contested {
		return 0, false
	}
	return w.insert(f, out), true
}

// kidCommit is a remembered commit as the second pass needs it: its action read whole and
// its key in the commit cache.
type kidCommit struct {
	x   memoAct
	key uint64
}

// kid is a remembered action as the second pass over a remembered context needs it.
type kid struct {
	a    Action
	take bool // taken anew
	// commit: a remembered commit (f holds its context hash until its stored state is known)
	commit bool
	at     int32 // where the action lies in the entry's actions
	f      fp    // the child's fingerprint
	// sfrom, sto: where a commit's child's stored state lies in worker.kids (-1: the
	// parent's).
	sfrom, sto int32
}

// recentSlots is the size of a worker's table of recent fingerprints (128 KiB: it stays in
// the core's own cache).
const recentSlots = 1 << 14

// step applies one action to the decoded state and checks the invariants. The child's
// encoding is left in w.buf; isNew says whether the set does not know it yet.
func (w *worker) step(a Action, accepted func(int64) bool, remember bool) (v *spcheck.Violation, f fp, isNew bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, isNew, err = &spcheck.Violation{Invariant: "core-panic", Msg: fmt.Sprint(p)}, false, nil
		}
	}()
	return w.check(a, accepted, remember)
}

func (w *worker) check(a Action, accepted func(int64) bool, remember bool) (*spcheck.Violation, fp, bool, error) {
	h := w.h
	w.finding, w.inconsistent = "", false
	// The step's description lives on the stack (no write barriers); the worker keeps its
	// slices' memory.
	st := spcheck.Step{Writes: w.st.Writes[:0], Committed: w.st.Committed[:0], RolledBack: w.st.RolledBack[:0]}
	store := w.base.storeEnc
	if a.storeStep() {
		h.storeDirty, store = true, nil
	}
	err := h.apply(a, &st)
	if cap(st.Writes) != cap(w.st.Writes) || cap(st.Committed) != cap(w.st.Committed) || cap(st.RolledBack) != cap(w.st.RolledBack) {
		w.st.Writes, w.st.Committed, w.st.RolledBack = st.Writes, st.Committed, st.RolledBack
	}
	if err != nil {
		if ce, ok := err.(*coreError); ok {
			return &spcheck.Violation{Invariant: "core-error", Msg: ce.Error()}, 0, false, nil
		}
		return nil, 0, false, err
	}
	w.buf = h.encodeWith(w.buf[:0], store)
	hT := w.baseHT // the step left the parent's stored state as it was
	if store == nil {
		hT = storeHash(w.buf[h.encFrom:h.encTo])
	}
	w.kh = contextHash(w.buf[:h.encFrom], w.buf[h.encTo:])
	f := stateFP(w.kh, hT)
	// Start fetching the set's slot now; the invariants below do not depend on it, so the
	// memory access overlaps with them.
	w.prefetchSeen(f)
	w.cur.Capture(h.sp)
	if v := spcheck.Check(w.cfg, h.sp, &w.prev, &w.cur, &st, accepted, false); v != nil {
		return v, f, false, nil
	}
	if w.sc.Findings {
		w.finding, w.findingV = strictFinding(w.cfg, &w.prev, &w.cur, &st, accepted)
	}
	slot := &w.recent[uint64(f)&(recentSlots-1)]
	seen, err := w.seen(f)
	if err != nil {
		return nil, f, false, err
	}
	if (!seen || remember) && !w.sc.NoConsistency {
		if err := h.sp.CheckConsistency(); err != nil {
			if !seen {
				return &spcheck.Violation{Invariant: spcheck.CoreConsistent, Msg: err.Error()}, f, false, nil
			}
			w.inconsistent = true
		}
	}
	*slot = uint64(f)
	return nil, f, !seen, nil
}
