//go:build !unix

package fdlimit

import "errors"

var errUnsupported = errors.New("no RLIMIT_NOFILE on this platform")

func get() (Limit, error) { return Limit{}, errUnsupported }
func set(Limit) error     { return errUnsupported }
func nrOpen() uint64      { return 0 }
