package transport

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
)

// setBindNoPort sets IP_BIND_ADDRESS_NO_PORT on a socket.
func setBindNoPort(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
}

// peeker tells whether an idle connection is no longer usable: the server
// closed it (end of stream, or a reset), or it sent bytes nobody asked
// for (a 408 before its idle timeout closes it, or a stray response). It
// peeks without blocking, one recv(2), and allocates nothing per check
// (the raw connection and the callback are made once per connection).
// On TLS the bytes are a record: pending decrypts it, without waiting,
// since a post-handshake message (a session ticket, a key update) is no
// answer and leaves the connection usable.
type peeker struct {
	raw   syscall.RawConn
	fn    func(fd uintptr) bool
	sock  *tlsSocket // the socket under a TLS connection; nil on plain TCP
	state idleState
	n     int
	b     [16]byte // the start of bytes found: enough to tell a 408
}

// newPeeker returns c's peeker, or nil where c has no socket to peek.
func newPeeker(c net.Conn) *peeker {
	p := &peeker{}
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
		s, ok := c.(*tlsSocket)
		if !ok {
			return nil // TLS over a proxy's TLS: no socket of its own
		}
		p.sock = s
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
		default:
			p.state, p.n = idleData, n
		}
		return true
	}
	return p
}

// overTLS reports whether p's connection is a TLS one over its own socket.
func (p *peeker) overTLS() bool { return p != nil && p.sock != nil }

// pending is what arrived on an idle TLS connection (overTLS) whose read
// buffer br is empty: the start of application data (idleData); nothing,
// or only post-handshake messages (idleOpen); a close_notify, the end of
// the stream or a broken record (idleClosed). It reads what has arrived
// through br and never waits for more (tlsSocket.nowait); a record not
// yet whole stays in the TLS state for the next read.
func (p *peeker) pending(br *bufio.Reader) (idleState, []byte) {
	p.sock.nowait = true
	b, err := br.Peek(1)
	p.sock.nowait = false
	switch {
	case len(b) > 0:
		b, _ = br.Peek(min(br.Buffered(), len(p.b)))
		return idleData, b
	case errors.Is(err, errWouldBlock):
		return idleOpen, nil
	}
	return idleClosed, nil
}

// tlsSocket is the TCP connection under a lean TLS connection. While
// nowait is set (by its peeker, on the goroutine that holds the idle
// connection), a read takes what the kernel holds and fails with
// errWouldBlock instead of waiting: a read error the TLS layer treats as
// temporary, so the connection stays usable.
type tlsSocket struct {
	net.Conn
	raw    syscall.RawConn
	nowait bool
}

// socketUnder returns nc as the socket of a TLS connection: a tlsSocket
// when it is a TCP connection, nc itself otherwise.
func socketUnder(nc net.Conn) net.Conn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nc
	}
	return &tlsSocket{Conn: nc, raw: raw}
}

func (s *tlsSocket) Read(p []byte) (int, error) {
	if !s.nowait {
		return s.Conn.Read(p)
	}
	var n int
	var err error
	if cerr := s.raw.Read(func(fd uintptr) bool {
		n, err = syscall.Read(int(fd), p) // the runtime keeps the socket non-blocking
		return true
	}); cerr != nil {
		return 0, cerr
	}
	switch {
	case err == syscall.EAGAIN || err == syscall.EINTR:
		return 0, errWouldBlock
	case err != nil:
		return 0, err
	case n <= 0:
		return 0, io.EOF
	}
	return n, nil
}

// SyscallConn is the socket's, for the peeker.
func (s *tlsSocket) SyscallConn() (syscall.RawConn, error) { return s.raw, nil }

// errWouldBlock is a tlsSocket read that found nothing to read.
var errWouldBlock error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "nothing to read yet" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

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
