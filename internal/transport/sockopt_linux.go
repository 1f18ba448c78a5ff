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
// nobody asked for (a 408 before its idle timeout closes it, or a stray
// response). It peeks without blocking, one recv(2), and allocates nothing
// per check (the raw connection and the callback are made once per
// connection). A TLS connection may legitimately hold a post-handshake
// message (a session ticket), so only the end counts there.
type peeker struct {
	raw         syscall.RawConn
	fn          func(fd uintptr) bool
	dataIsStale bool
	state       idleState
	n           int
	b           [16]byte // the start of bytes found: enough to tell a 408
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
		p.n = 0
		switch {
		case err == syscall.EAGAIN || err == syscall.EINTR:
			p.state = idleOpen
		case err != nil || n == 0:
			p.state = idleClosed // reset, or the end of the stream
		case p.dataIsStale:
			p.state, p.n = idleData, n
		default:
			p.state = idleOpen
		}
		return true
	}
	return p
}

// check reports the idle connection's state, and for idleData the first
// bytes that arrived (valid until the next check).
func (p *peeker) check() (idleState, []byte) {
	if p == nil {
		return idleOpen, nil // a nil peeker knows nothing, and says usable
	}
	if err := p.raw.Read(p.fn); err != nil {
		return idleClosed, nil // the connection is closed on our side
	}
	return p.state, p.b[:p.n]
}

// peerClosed reports whether the connection is no longer usable.
func (p *peeker) peerClosed() bool {
	s, _ := p.check()
	return s != idleOpen
}
