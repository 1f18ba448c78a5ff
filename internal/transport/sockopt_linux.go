package transport

import (
	"crypto/tls"
	"net"
	"syscall"
)

// setBindNoPort sets IP_BIND_ADDRESS_NO_PORT on a socket.
func setBindNoPort(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
}

// peeker tells whether an idle connection is no longer usable: the server
// closed it (end of stream, or a reset), or, on plain TCP, it sent bytes
// nobody asked for. It peeks without blocking, one recv(2), and allocates
// nothing per check (the raw connection and the callback are made once per
// connection). A TLS connection may legitimately hold a post-handshake
// message (a session ticket), so only the end counts there.
type peeker struct {
	raw         syscall.RawConn
	fn          func(fd uintptr) bool
	dataIsStale bool
	closed      bool
	b           [1]byte
}

// newPeeker returns c's peeker, or nil where c has no socket to peek.
func newPeeker(c net.Conn) *peeker {
	p := &peeker{dataIsStale: true}
	if tc, ok := c.(*tls.Conn); ok {
		c, p.dataIsStale = tc.NetConn(), false
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	p.raw = raw
	p.fn = func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), p.b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EINTR:
			p.closed = false
		case err != nil || n == 0:
			p.closed = true // reset, or the end of the stream
		default:
			p.closed = p.dataIsStale
		}
		return true
	}
	return p
}

// peerClosed reports whether the connection is no longer usable (see
// peeker); a nil peeker knows nothing, and says usable.
func (p *peeker) peerClosed() bool {
	if p == nil {
		return false
	}
	if err := p.raw.Read(p.fn); err != nil {
		return true // the connection is closed on our side
	}
	return p.closed
}
