//go:build !unix

package userfile

import "os"

// openNoFollow opens path read-only. Without O_NOFOLLOW the checks in
// Open (Lstat before, SameFile after) are what refuse a swapped link.
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}

// openNonBlocking opens path read-only.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
