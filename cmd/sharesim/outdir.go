package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/sharesim/sharesim/internal/atomicfile"
)

// A result folder is sharesim's: it holds a marker file, markerName, that sharesim wrote
// when it first wrote there. A command with --out takes the folder as follows, before any
// work:
//
//   - a missing or empty folder is created and marked;
//   - a folder sharesim marked is taken again, and the files of the previous result are
//     removed first (resultFile), so that the new result is never mixed with the old;
//   - any other non-empty folder ("/", a home directory, a source tree) is refused unless
//     --force, and with --force nothing in it is removed.
//
// The marker is also the folder's lock: the command holds an exclusive flock on it until
// it ends, so a second command writing the same folder is refused instead of mixing its
// files in. The lock goes with the process, even on SIGKILL.
const markerName = ".sharesim"

// outFolder is a result folder taken by this process.
type outFolder struct {
	dir  string
	lock *os.File
}

// takeOut takes dir for a command's results (see markerName). kind names the command's
// result ("run", "sweep", ...), written into the marker. keep lists the result files of a
// previous result that must survive (sweep --resume keeps runs.ndjson and sweep-spec.json).
func takeOut(dir, kind string, force bool, keep ...string) (*outFolder, error) {
	if strings.TrimSpace(dir) == "" {
		return nil, usageErr("--out %q: expected a folder", dir)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, usageErr("--out %s: is a file; expected a folder (new or existing)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, usageErr("--out %s: cannot create the folder: %v", dir, unwrapPath(err))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, usageErr("--out %s: cannot read the folder: %v", dir, unwrapPath(err))
	}
	ours := false
	for _, e := range entries {
		ours = ours || e.Name() == markerName
	}
	if !ours && len(entries) > 0 && !force {
		return nil, usageErr("--out %s: the folder is not empty and sharesim did not write it (no %s file); give a new or empty folder, or --force to write into it anyway", dir, markerName)
	}
	lock, err := os.OpenFile(filepath.Join(dir, markerName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, usageErr("--out %s: cannot write in the folder: %v", dir, unwrapPath(err))
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, usageErr("--out %s: another sharesim command is writing this folder; wait for it to end or give another folder", dir)
		}
		return nil, usageErr("--out %s: cannot lock the folder: %v", dir, err)
	}
	o := &outFolder{dir: dir, lock: lock}
	if err := lock.Truncate(0); err == nil {
		fmt.Fprintf(lock, "a sharesim result folder (%s); sharesim replaces the files it wrote here when it writes here again\n", kind)
	}
	if err := atomicfile.RemoveTemps(dir); err != nil {
		o.release()
		return nil, usageErr("--out %s: %v", dir, err)
	}
	if ours {
		for _, e := range entries {
			if resultFile(e.Name()) && !slices.Contains(keep, e.Name()) {
				if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
					o.release()
					return nil, usageErr("--out %s: removing the previous result: %v", dir, unwrapPath(err))
				}
			}
		}
	}
	return o, nil
}

// release ends the folder's lock (the marker stays).
func (o *outFolder) release() {
	if o == nil || o.lock == nil {
		return
	}
	o.lock.Close()
	o.lock = nil
}

// resultFile reports whether name is a file or folder sharesim writes into a result folder.
func resultFile(name string) bool {
	switch name {
	case "summary.json", "metrics.csv", "groups.csv", "events.ndjson", "history.ndjson", "scenario.yaml",
		"series.json", "records.json", "linearizability.html", "index.html",
		"sweep.json", "sweep.csv", "sweep-aggregate.csv", "sweep-spec.json", "runs.ndjson", "runs", "series":
		return true
	}
	ext := filepath.Ext(name)
	return (ext == ".svg" || ext == ".png") && !strings.Contains(name, string(filepath.Separator))
}

// sameFolder reports whether a and b name the same existing folder.
func sameFolder(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// lockFolder locks an existing result folder for a command that rewrites part of it in
// place (report): the folder must exist; its previous result stays.
func lockFolder(dir string) (*outFolder, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, inputErr(fmt.Errorf("%s: not a result folder: %v", dir, unwrapPath(err)))
	}
	if !st.IsDir() {
		return nil, inputErr(fmt.Errorf("%s: not a result folder (a file)", dir))
	}
	_, e1 := os.Stat(filepath.Join(dir, "summary.json"))
	_, e2 := os.Stat(filepath.Join(dir, "sweep.json"))
	if e1 != nil && e2 != nil {
		return &outFolder{dir: dir}, nil // not a result folder: Render says so, and nothing is created
	}
	lock, err := os.OpenFile(filepath.Join(dir, markerName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		// A read-only folder: nothing will be written either; Render reports it.
		return &outFolder{dir: dir}, nil
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, usageErr("%s: another sharesim command is writing this folder; wait for it to end", dir)
	}
	return &outFolder{dir: dir, lock: lock}, nil
}
