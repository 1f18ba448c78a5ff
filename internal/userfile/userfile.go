// Package userfile reads files whose paths come from the user (flag
// values, configuration entries). Such a path is untrusted input: a
// symbolic link anywhere along it can redirect the read to a file the user
// never named, and a FIFO or device can block the process forever or feed
// it endless data. Every read of a user-supplied path goes through ReadFile
// or Open, which refuse both.
//
// Files the tool manages itself (artifacts, the HuggingFace hub cache,
// which legitimately uses symlinks) do not go through this package.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Reasons a path is refused; test with errors.Is.
var (
	// ErrSymlink: a component of the path, the last one included, is a
	// symbolic link.
	ErrSymlink = errors.New("is a symbolic link")
	// ErrNotRegular: the path names a directory, FIFO, socket or device.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrChanged: the file changed between the checks and the open (a
	// component was swapped for a link while it was being read).
	ErrChanged = errors.New("changed while it was being opened")
)

// Error is a refused or failed read. It names the path as the user gave
// it, and the component at fault when that is not the whole path.
type Error struct {
	Path      string // the path as given
	Component string // the offending prefix of Path; "" when it is Path itself
	Err       error  // ErrSymlink, ErrNotRegular, ErrChanged or an *fs.PathError
}

func (e *Error) Error() string {
	if e.Component != "" && e.Component != e.Path {
		return fmt.Sprintf("file %q: %q %v", e.Path, e.Component, e.Err)
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return fmt.Sprintf("file %q: %s: %v", e.Path, pe.Op, pe.Err)
	}
	return fmt.Sprintf("file %q %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Open opens path for reading after checking that no component of it is a
// symbolic link and that it names a regular file. The checks are made
// again on the open file (same file as checked, still regular), so a
// component swapped for a link in between is caught rather than followed.
// Relative paths are checked from the working directory down; the
// directories above the working directory are not the user's input and
// are not checked.
func Open(path string) (*os.File, error) {
	if path == "" {
		return nil, &Error{Path: path, Err: &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}}
	}
	checked, err := checkComponents(path)
	if err != nil {
		return nil, err
	}
	return openChecked(path, checked, openNoFollow, ErrNotRegular)
}

// ReadFile returns the contents of the regular file at path, with the
// checks of Open.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return b, nil
}

// OpenData opens a data file the user named (a dataset given with
// --input-file). Unlike Open it follows symbolic links: a dataset under a
// symlinked home or temporary directory, or a link to a shared copy, is
// ordinary, and the file is read, never executed or written. It still must
// be a regular file, so a FIFO, device or directory is refused before
// anything blocks on it; the check is repeated on the open file.
func OpenData(path string) (*os.File, error) {
	if path == "" {
		return nil, &Error{Path: path, Err: &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}}
	}
	checked, err := os.Stat(path)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return openChecked(path, checked, openNonBlocking, ErrChanged)
}

// openChecked opens path, which was checked to be the regular file
// checked, with open and makes the checks again on the open file: still
// regular (else notRegular) and the same file (else ErrChanged).
func openChecked(path string, checked fs.FileInfo, open func(string) (*os.File, error), notRegular error) (*os.File, error) {
	if !checked.Mode().IsRegular() {
		return nil, &Error{Path: path, Err: ErrNotRegular}
	}
	f, err := open(path)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	opened, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{Path: path, Err: err}
	}
	err = nil
	switch {
	case !opened.Mode().IsRegular():
		err = notRegular
	case !os.SameFile(checked, opened):
		err = ErrChanged
	}
	if err != nil {
		f.Close()
		return nil, &Error{Path: path, Err: err}
	}
	return f, nil
}

// checkComponents Lstats every prefix of path, shortest first, and
// returns the last one's information. A symbolic link anywhere is refused.
func checkComponents(path string) (fs.FileInfo, error) {
	clean := filepath.Clean(path)
	var prefixes []string
	for p := clean; ; {
		prefixes = append(prefixes, p)
		parent := filepath.Dir(p)
		if parent == p || parent == "." {
			break
		}
		p = parent
	}
	var info fs.FileInfo
	for i := len(prefixes) - 1; i >= 0; i-- {
		p := prefixes[i]
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, &Error{Path: path, Err: err}
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			comp := p
			if i == 0 {
				comp = ""
			}
			return nil, &Error{Path: path, Component: comp, Err: ErrSymlink}
		}
		info = fi
	}
	return info, nil
}
