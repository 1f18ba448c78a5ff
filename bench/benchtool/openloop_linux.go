package main

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// refConn is one of the reference's connections: its socket, what it has
// read of its current response, and whether a request is outstanding.
type refConn struct {
	fd   int
	buf  []byte // read buffer; buf[:n] is unparsed input
	n    int
	busy bool
	dead bool
}

// openLoop runs the reference on the calling goroutine, locked to its OS
// thread for the whole run, with nothing but system calls: connections are
// blocking-connected then made non-blocking, and one epoll set waits for
// their replies and for the timerfd armed to the next due time. Credits
// due by the time the loop looks go out at once (each with its own lag), so
// a late wake-up never accumulates. The loop allocates nothing after the
// start, so the garbage collector stays out of the measurement.
//
// Its hot system calls (epoll_pwait, read, write, timerfd_settime) are raw:
// they do not tell the Go scheduler, which would otherwise hand the P away
// during every wait and keep its monitor thread waking every 20 µs to do
// so (thousands of futex and nanosleep calls a second, measured with
// strace -c). The price is that the P is held while the loop waits: other
// goroutines of the process run only when it is preempted, so a test that
// serves from the same process needs GOMAXPROCS >= 2.
func openLoop(c openLoopConfig) (openLoopResult, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var res openLoopResult
	addr, err := net.ResolveTCPAddr("tcp4", c.Addr)
	if err != nil {
		return res, fmt.Errorf("openloop: %w", err)
	}
	sa := &unix.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())

	epfd, tfd, err := timerEpoll()
	if err != nil {
		return res, fmt.Errorf("openloop: %w", err)
	}
	defer unix.Close(epfd)
	defer unix.Close(tfd)

	var byFD []*refConn                  // indexed by descriptor
	free := make([]*refConn, 0, c.Conns) // LIFO: the most recently used first
	defer func() {
		for _, rc := range byFD {
			if rc != nil {
				_ = unix.Close(rc.fd)
			}
		}
	}()
	for range c.Conns {
		fd, err := dialRaw(sa)
		if err != nil {
			return res, err
		}
		rc := &refConn{fd: fd, buf: make([]byte, 64<<10)}
		for len(byFD) <= fd {
			byFD = append(byFD, nil)
		}
		byFD[fd] = rc
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}); err != nil {
			return res, fmt.Errorf("openloop: epoll_ctl: %w", err)
		}
		free = append(free, rc)
	}
	res.Connections = c.Conns

	res.Lags = make([]time.Duration, 0, c.N)
	events := make([]unix.EpollEvent, c.Conns+1)
	var tbuf [8]byte
	var r0 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &r0)
	start := time.Now()
	sent, outstanding := 0, 0
	waiting := false // the next credit is due and found no free connection
	var lastResponse time.Duration
	armed := time.Duration(-1) // the time the timerfd is armed for
	lastWake := time.Duration(-c.Quantum)
	deadline := c.Dues[c.N-1] + c.Grace
	for sent < c.N || outstanding > 0 {
		now := time.Since(start)
		for sent < c.N {
			due := c.Dues[sent]
			if due > now {
				break
			}
			if len(free) == 0 {
				if !waiting {
					res.Waited++
					waiting = true
				}
				break
			}
			waiting = false
			rc := free[len(free)-1]
			free = free[:len(free)-1]
			at := time.Since(start)
			if err := writeAll(rc.fd, c.Request); err != nil {
				res.Errors++
				rc.dead = true
				sent++
				continue
			}
			res.Lags = append(res.Lags, at-due)
			rc.busy = true
			outstanding++
			sent++
			now = at
		}
		if now >= deadline {
			res.Errors += outstanding + (c.N - sent) // never answered, or never sent
			break
		}
		timeout := -1
		if sent < c.N && !waiting {
			// Never sooner than Quantum after the last timer wake-up:
			// what falls due in between goes out together at the next.
			next := max(c.Dues[sent], lastWake+c.Quantum)
			wait := next - time.Since(start)
			if wait <= 0 {
				continue
			}
			if next != armed {
				spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(wait))}
				if err := rawTimerfdSettime(tfd, &spec); err != nil {
					return res, fmt.Errorf("openloop: timerfd_settime: %w", err)
				}
				armed = next
			}
		} else {
			// Only replies can move the loop on: bound the wait by the
			// deadline so a server that stops answering ends the run.
			timeout = int((deadline-now)/time.Millisecond) + 1
		}
		k, err := rawEpollWait(epfd, events, timeout)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return res, fmt.Errorf("openloop: epoll_wait: %w", err)
		}
		for _, ev := range events[:k] {
			if int(ev.Fd) == tfd {
				_, _ = rawRead(tfd, tbuf[:])
				armed, lastWake = -1, time.Since(start)
				res.Wakes++
				continue
			}
			rc := byFD[ev.Fd]
			if rc == nil || rc.dead {
				continue
			}
			done, bad := rc.readResponses()
			res.OK += done
			res.Errors += bad
			if done+bad > 0 {
				outstanding -= done + bad
				rc.busy = false
				lastResponse = time.Since(start)
			}
			if rc.dead {
				_ = unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, rc.fd, nil)
			} else if !rc.busy {
				free = append(free, rc)
			}
		}
	}
	var r1 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &r1)
	res.User = time.Duration(unix.TimevalToNsec(r1.Utime) - unix.TimevalToNsec(r0.Utime))
	res.Sys = time.Duration(unix.TimevalToNsec(r1.Stime) - unix.TimevalToNsec(r0.Stime))
	res.Elapsed = lastResponse
	sortLags(res.Lags)
	return res, nil
}

// readResponses reads what the socket has and parses the responses in it:
// done 2xx ones, bad ones (another status, a parse error, or the peer
// closing with a request outstanding, which also marks the connection
// dead). A connection carries at most one request at a time, so once a
// response is complete and nothing is left over, there is nothing more to
// read.
func (rc *refConn) readResponses() (done, bad int) {
	for {
		if rc.n == len(rc.buf) {
			rc.dead = true
			return done, bad + 1 // a response over 64 KiB: not what the reference is for
		}
		m, err := rawRead(rc.fd, rc.buf[rc.n:])
		if errors.Is(err, unix.EAGAIN) {
			return done, bad
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || m == 0 {
			rc.dead = true
			if rc.busy {
				bad++
			}
			return done, bad
		}
		rc.n += m
		for rc.n > 0 {
			n, status, err := parseResponse(rc.buf[:rc.n])
			if errors.Is(err, errIncomplete) {
				break
			}
			if err != nil {
				rc.dead = true
				return done, bad + 1
			}
			if status >= 200 && status < 300 {
				done++
			} else if status >= 300 {
				bad++
			}
			rc.n = copy(rc.buf, rc.buf[n:rc.n])
		}
		if done+bad > 0 && rc.n == 0 {
			return done, bad
		}
	}
}

// dialRaw opens a blocking TCP connection to sa with TCP_NODELAY (as Go's
// and wrk's are) and makes it non-blocking.
func dialRaw(sa *unix.SockaddrInet4) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("openloop: socket: %w", err)
	}
	if err := unix.Connect(fd, sa); err != nil {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("openloop: connect: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("openloop: TCP_NODELAY: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("openloop: non-blocking: %w", err)
	}
	return fd, nil
}

// writeAll writes b to the non-blocking socket fd. A request is a few
// hundred bytes against a socket buffer of hundreds of KiB, so a short
// write means the peer stopped reading: an error for the reference.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		m, err := rawWrite(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		b = b[m:]
	}
	return nil
}

// The raw system calls of the loop (see openLoop).

func rawEpollWait(epfd int, events []unix.EpollEvent, msec int) (int, error) {
	n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(msec), 0, 0)
	return int(n), errnoErr(e)
}

func rawRead(fd int, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), errnoErr(e)
}

func rawWrite(fd int, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), errnoErr(e)
}

func rawTimerfdSettime(fd int, spec *unix.ItimerSpec) error {
	_, _, e := syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(fd), 0, uintptr(unsafe.Pointer(spec)), 0, 0, 0)
	return errnoErr(e)
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// timerEpoll opens an epoll set holding a non-blocking monotonic timerfd
// (level-triggered, its descriptor as the event's Fd).
func timerEpoll() (epfd, tfd int, err error) {
	epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return -1, -1, fmt.Errorf("epoll_create1: %w", err)
	}
	tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		_ = unix.Close(epfd)
		return -1, -1, fmt.Errorf("timerfd_create: %w", err)
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, tfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(tfd)}); err != nil {
		_ = unix.Close(epfd)
		_ = unix.Close(tfd)
		return -1, -1, fmt.Errorf("epoll_ctl: %w", err)
	}
	return epfd, tfd, nil
}

// rawTimerLates returns, sorted, how late (ms) the reference's own way of
// waiting woke for each of n deadlines gap apart: a timerfd in an epoll set
// on a locked OS thread, raw system calls, the timer armed relative to each
// deadline. Beside a timing.Sleeper at the same gap, with processCPU, it
// separates what the Go runtime adds to each wake-up from the machine's own
// cost of one.
func rawTimerLates(n int, gap time.Duration) ([]float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	epfd, tfd, err := timerEpoll()
	if err != nil {
		return nil, fmt.Errorf("wakefloor: %w", err)
	}
	defer unix.Close(epfd)
	defer unix.Close(tfd)
	events := make([]unix.EpollEvent, 1)
	var buf [8]byte
	lates := make([]float64, 0, n)
	start := time.Now()
	for i := 1; i <= n; i++ {
		due := time.Duration(i) * gap
		for {
			wait := due - time.Since(start)
			if wait <= 0 {
				break
			}
			spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(wait))}
			if err := rawTimerfdSettime(tfd, &spec); err != nil {
				return nil, fmt.Errorf("wakefloor: timerfd_settime: %w", err)
			}
			if _, err := rawEpollWait(epfd, events, -1); err != nil && !errors.Is(err, unix.EINTR) {
				return nil, fmt.Errorf("wakefloor: epoll_wait: %w", err)
			}
			_, _ = rawRead(tfd, buf[:])
		}
		lates = append(lates, float64(time.Since(start)-due)/float64(time.Millisecond))
	}
	slices.Sort(lates)
	return lates, nil
}

// processCPU is the process's CPU time so far (user + system).
func processCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(unix.TimevalToNsec(ru.Utime) + unix.TimevalToNsec(ru.Stime))
}
