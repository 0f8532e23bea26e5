package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// run --out into a folder sharesim wrote replaces the previous result (no file of it is
// left mixed in); a foreign non-empty folder is refused, and with --force written into
// without removing anything of its own.
func TestRunOutReplacesItsOwnAndRefusesForeign(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if code, text := runCLI(t, dir, "run", "quickstart", "--set", "duration=2s", "--history", "--out", out, "-q"); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(out, "history.ndjson")); err != nil {
		t.Fatal(err)
	}
	if code, text := runCLI(t, dir, "run", "quickstart", "--set", "duration=3s", "--out", out, "-q"); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(out, "history.ndjson")); err == nil {
		t.Error("the first run's history.ndjson is still there, mixed with the second run's result")
	}
	foreign := filepath.Join(dir, "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("keep"), 0o644)
	if code, text := runCLI(t, dir, "run", "quickstart", "--set", "duration=2s", "--out", foreign, "-q"); code != exitUsage || !strings.Contains(text, "sharesim did not write it") {
		t.Errorf("a foreign folder: exit %d\n%s", code, text)
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("the refused folder was changed: %v", entries)
	}
	if code, text := runCLI(t, dir, "run", "quickstart", "--set", "duration=2s", "--out", foreign, "--force", "-q"); code != 0 {
		t.Errorf("--force: exit %d\n%s", code, text)
	}
	if b, err := os.ReadFile(filepath.Join(foreign, "notes.txt")); err != nil || string(b) != "keep" {
		t.Errorf("--force removed or changed the folder's own file: %q %v", b, err)
	}
}

// A folder another sharesim command is writing (its .sharesim file locked) is refused.
func TestOutFolderLocked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	f, err := os.OpenFile(filepath.Join(out, markerName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "quickstart", "--set", "duration=2s", "--out", out},
		{"sweep", "quickstart", "--seeds", "1..2", "--set", "duration=2s", "--out", out, "--force"},
	} {
		if code, text := runCLI(t, dir, args...); code != exitUsage || !strings.Contains(text, "another sharesim command is writing this folder") {
			t.Errorf("%v: exit %d\n%s", args, code, text)
		}
	}
}

// report writes index.html by rename, so a symbolic link planted in its place is replaced,
// not written through.
func TestReportDoesNotWriteThroughALink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if code, text := runCLI(t, dir, "run", "quickstart", "--set", "duration=2s", "--out", out, "-q"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, text)
	}
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	os.Remove(filepath.Join(out, "index.html"))
	if err := os.Symlink(victim, filepath.Join(out, "index.html")); err != nil {
		t.Fatal(err)
	}
	if code, text := runCLI(t, dir, "report", out); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, text)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Error("report wrote through the planted link")
	}
	if st, err := os.Lstat(filepath.Join(out, "index.html")); err != nil || st.Mode()&os.ModeSymlink != 0 {
		t.Errorf("index.html is still the link (%v)", err)
	}
}
