//go:build !linux

package transport

import (
	"bufio"
	"net"
)

// setBindNoPort does nothing where IP_BIND_ADDRESS_NO_PORT is unknown.
func setBindNoPort(int) error { return nil }

// peeker cannot peek here: a connection the server closed while idle is
// found by the request written on it, and resent (see leanTransport.send).
type peeker struct{}

func newPeeker(net.Conn) *peeker { return nil }

func (*peeker) check() (idleState, []byte) { return idleOpen, nil }

func (*peeker) peerClosed() bool { return false }

func (*peeker) overTLS() bool { return false }

func (*peeker) pending(*bufio.Reader) (idleState, []byte) { return idleOpen, nil }

// socketUnder is nc: without a peeker, nothing reads the socket itself.
func socketUnder(nc net.Conn) net.Conn { return nc }
