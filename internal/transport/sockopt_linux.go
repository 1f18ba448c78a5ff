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

// peerClosed reports whether an idle connection is no longer usable: the
// server closed it (end of stream, or a reset), or, on plain TCP, it sent
// bytes nobody asked for. It peeks without blocking, one recv(2). A TLS
// connection may legitimately hold a post-handshake message (a session
// ticket), so only the end counts there.
func peerClosed(c net.Conn) bool {
	dataIsStale := true
	if tc, ok := c.(*tls.Conn); ok {
		c, dataIsStale = tc.NetConn(), false
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	_ = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EINTR:
		case err != nil || n == 0:
			closed = true // reset, or the end of the stream
		default:
			closed = dataIsStale
		}
		return true
	})
	return closed
}
