package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A write replaces a planted symbolic link, not the file it points to; an aborted write
// leaves the target and no temporary file.
func TestWriteReplacesSymlinkAndAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "index.html")
	if err := os.Symlink(victim, target); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat(target); err != nil || st.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("the target is still a link (%v)", err)
	}
	f, err := Create(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("entries after an abort: %v", entries)
	}
	f, _ = Create(filepath.Join(dir, "b.json"))
	f.WriteString("left by a kill")
	f.File.Close()
	if err := RemoveTemps(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("entries after RemoveTemps: %v", entries)
	}
}
