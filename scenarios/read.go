package scenarios

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// ReadTimeout bounds the time Load and ReadFrom spend reading one scenario (opening
// included): a FIFO nobody writes to, a terminal nobody types into or a slow device gives an
// error after it instead of a hang.
var ReadTimeout = 10 * time.Second

// readResult is what a bounded read produced.
type readResult struct {
	data []byte
	err  *Error
}

// readBounded reads at most maxFileSize bytes from r; more is an error naming the limit.
func readBounded(name string, r io.Reader) readResult {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return readResult{err: &Error{File: name, Found: "an unreadable file (" + unwrapPathErr(err) + ")", Expected: "a readable scenario file"}}
	}
	if len(data) > maxFileSize {
		return readResult{err: &Error{File: name, Found: fmt.Sprintf("more than %d bytes", maxFileSize), Expected: fmt.Sprintf("a scenario file of at most %d bytes (4 MiB)", maxFileSize)}}
	}
	return readResult{data: data}
}

func unwrapPathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// withTimeout runs read and gives up after ReadTimeout; a read still blocked then is left
// behind (it holds at most maxFileSize bytes and ends with the process).
func withTimeout(name, what string, read func() readResult) readResult {
	ch := make(chan readResult, 1)
	go func() { ch <- read() }()
	t := time.NewTimer(ReadTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r
	case <-t.C:
		return readResult{err: &Error{File: name, Found: fmt.Sprintf("%s that gave no end of file within %s", what, ReadTimeout),
			Expected: "a scenario file that can be read to its end"}}
	}
}

// readScenarioFile reads a scenario file, bounded in size and time for every kind of file:
// regular files are checked against the size limit before reading, directories are
// refused, FIFOs are opened without waiting for a writer (none means an empty file), and
// devices (/dev/zero, /dev/urandom) are read up to the size limit.
func readScenarioFile(file string) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, &Error{File: file, Found: "an unreadable file (" + unwrapPathErr(err) + ")", Expected: "a readable scenario file"}
	}
	mode := st.Mode()
	switch {
	case mode.IsDir():
		return nil, &Error{File: file, Found: "a directory", Expected: "a scenario file"}
	case mode.IsRegular() && st.Size() > maxFileSize:
		return nil, &Error{File: file, Found: fmt.Sprintf("a file of %d bytes", st.Size()), Expected: fmt.Sprintf("a scenario file of at most %d bytes (4 MiB)", maxFileSize)}
	}
	what := "a file"
	flags := os.O_RDONLY
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what, flags = "a FIFO", flags|syscall.O_NONBLOCK
	case mode&fs.ModeDevice != 0 || mode&fs.ModeCharDevice != 0:
		what = "a device"
	case mode&fs.ModeSocket != 0:
		return nil, &Error{File: file, Found: "a socket", Expected: "a scenario file"}
	}
	r := withTimeout(file, what, func() readResult {
		f, err := os.OpenFile(file, flags, 0)
		if err != nil {
			return readResult{err: &Error{File: file, Found: "an unreadable file (" + unwrapPathErr(err) + ")", Expected: "a readable scenario file"}}
		}
		defer f.Close()
		return readBounded(file, f)
	})
	if r.err != nil {
		return nil, r.err
	}
	if len(r.data) == 0 && what == "a FIFO" {
		return nil, &Error{File: file, Found: "a FIFO with no writer (nothing to read)", Expected: "a scenario file, or a FIFO something writes a scenario into"}
	}
	return r.data, nil
}

// ReadFrom reads and validates a scenario from r (standard input for the name "-"),
// bounded in size and time like Load.
func ReadFrom(name string, r io.Reader) (*Scenario, error) {
	res := withTimeout(name, "an input", func() readResult { return readBounded(name, r) })
	if res.err != nil {
		return nil, res.err
	}
	return Parse(name, res.data)
}
