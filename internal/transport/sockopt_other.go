//go:build !linux

package transport

// setBindNoPort does nothing where IP_BIND_ADDRESS_NO_PORT does not exist.
func setBindNoPort(int) error { return nil }
