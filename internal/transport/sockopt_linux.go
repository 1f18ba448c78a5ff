package transport

import "syscall"

// setBindNoPort sets IP_BIND_ADDRESS_NO_PORT on a socket.
func setBindNoPort(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
}
