// Package atomicfile writes files so that a reader sees the old content or the new, never a
// part of the new: the data goes to a temporary file in the same folder, which is renamed
// over the target when complete. The rename replaces a symbolic link planted at the target
// instead of writing through it, and an interruption leaves at most a temporary file, whose
// name starts with TempPrefix.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TempPrefix starts the name of every temporary file this package creates.
const TempPrefix = ".sharesim-tmp-"

// File is a file being written; Commit puts it in place, Abort removes it.
type File struct {
	*os.File
	target string
	done   bool
}

// Create starts writing path.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, target: path}, nil
}

// Commit closes the file and renames it over the target. After an error the temporary
// file is removed.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if err := f.File.Close(); err != nil {
		os.Remove(f.File.Name())
		return err
	}
	if err := os.Chmod(f.File.Name(), 0o644); err != nil {
		os.Remove(f.File.Name())
		return err
	}
	if err := os.Rename(f.File.Name(), f.target); err != nil {
		os.Remove(f.File.Name())
		return err
	}
	return nil
}

// Abort closes and removes the temporary file; the target is left as it was.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// WriteFile writes data to path atomically (the counterpart of os.WriteFile).
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// RemoveTemps removes the temporary files an interrupted writer left in dir.
func RemoveTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) && e.Type()&fs.ModeType == 0 {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("removing %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
