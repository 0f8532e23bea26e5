//go:build unix

package scenarios

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every kind of input is read in bounded size and time, with a message naming the file.
func TestLoadBoundedInputs(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, maxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, want string }{
		{big, "a file of 4194305 bytes"},
		{dir, "found a directory"},
		{filepath.Join(dir, "missing.yaml"), "unreadable file"},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, struct{ file, want string }{"/dev/zero", "more than 4194304 bytes"},
			struct{ file, want string }{"/dev/urandom", "more than 4194304 bytes"},
			struct{ file, want string }{"/dev/null", "an empty file"})
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err == nil {
			cases = append(cases, struct{ file, want string }{fifo, "a FIFO with no writer"})
		}
	}
	for _, c := range cases {
		start := time.Now()
		_, err := Load(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.file+": ") {
			t.Errorf("Load(%s) = %v, want an error starting with the file and containing %q", c.file, err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Load(%s) took %s", c.file, d)
		}
	}
}

// A read that never ends (a terminal nobody types into) gives up after ReadTimeout.
func TestReadFromTimesOut(t *testing.T) {
	old := ReadTimeout
	ReadTimeout = 50 * time.Millisecond
	defer func() { ReadTimeout = old }()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	_, err = ReadFrom("<stdin>", r)
	if err == nil || !strings.Contains(err.Error(), "<stdin>: found an input that gave no end of file within 50ms") {
		t.Fatalf("err = %v", err)
	}
}

// "-" reads standard input.
func TestLoadAnyStdin(t *testing.T) {
	old := Stdin
	defer func() { Stdin = old }()
	Stdin = strings.NewReader(base)
	sc, err := LoadAny("-")
	if err != nil {
		t.Fatal(err)
	}
	if sc.File() != "<stdin>" {
		t.Errorf("file %q", sc.File())
	}
}
