package api

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The server side of RFC 6455, as much as the progress stream needs: the
// opening handshake, masked client frames (text, continuation, ping,
// pong, close), and unmasked server text frames. Extensions and
// subprotocols are not negotiated.

// wsGUID is the key suffix of the opening handshake (RFC 6455 1.3).
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// Frame opcodes.
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

// Close codes.
const (
	closeNormal        = 1000
	closeGoingAway     = 1001
	closeProtocolError = 1002
	closeUnsupported   = 1003
	closeTooBig        = 1009
	closeTryAgainLater = 1013
)

// maxMessage bounds what a client may send in one message (subscriptions
// are a few hundred bytes).
const maxMessage = 1 << 20

var errWSClosed = errors.New("websocket closed")

// wsAccept is the Sec-WebSocket-Accept value for key.
func wsAccept(key string) string {
	h := sha1.Sum([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// headerHas reports whether a comma-separated header contains token
// (case-insensitive), as Connection: keep-alive, Upgrade does.
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// wsConn is one upgraded connection. Reads belong to one goroutine;
// writes are serialised by mu.
type wsConn struct {
	conn net.Conn
	br   *bufio.Reader
	mu   sync.Mutex
	done bool // a close frame was sent
}

// upgrade performs the opening handshake. On failure it has answered the
// request with an HTTP error.
func upgrade(w http.ResponseWriter, r *http.Request) (*wsConn, error) {
	key := r.Header.Get("Sec-WebSocket-Key")
	switch {
	case r.Method != http.MethodGet:
		http.Error(w, "websocket: GET required", http.StatusMethodNotAllowed)
		return nil, errors.New("not GET")
	case !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket"):
		http.Error(w, "websocket: expected Connection: Upgrade and Upgrade: websocket", http.StatusBadRequest)
		return nil, errors.New("not an upgrade")
	case r.Header.Get("Sec-WebSocket-Version") != "13":
		w.Header().Set("Sec-WebSocket-Version", "13")
		http.Error(w, "websocket: version 13 required", http.StatusUpgradeRequired)
		return nil, errors.New("bad version")
	}
	if k, err := base64.StdEncoding.DecodeString(key); err != nil || len(k) != 16 {
		http.Error(w, "websocket: bad Sec-WebSocket-Key", http.StatusBadRequest)
		return nil, errors.New("bad key")
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "websocket: connection cannot be upgraded", http.StatusInternalServerError)
		return nil, errors.New("no hijacker")
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return nil, err
	}
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + wsAccept(key) + "\r\n\r\n"
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(resp)); err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetWriteDeadline(time.Time{})
	return &wsConn{conn: conn, br: brw.Reader}, nil
}

// frame is one decoded frame.
type frame struct {
	fin     bool
	op      byte
	payload []byte
}

// readFrame reads one client frame; client frames must be masked.
func (c *wsConn) readFrame() (frame, error) {
	var h [2]byte
	if _, err := io.ReadFull(c.br, h[:]); err != nil {
		return frame{}, err
	}
	f := frame{fin: h[0]&0x80 != 0, op: h[0] & 0x0F}
	if h[0]&0x70 != 0 {
		return f, protocolError("reserved bits set")
	}
	masked := h[1]&0x80 != 0
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(c.br, b[:]); err != nil {
			return f, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(c.br, b[:]); err != nil {
			return f, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if !masked {
		return f, protocolError("client frames must be masked")
	}
	if f.op >= opClose && (n > 125 || !f.fin) {
		return f, protocolError("control frames must be short and unfragmented")
	}
	if n > maxMessage {
		return f, &wsError{code: closeTooBig, msg: "message too big"}
	}
	var key [4]byte
	if _, err := io.ReadFull(c.br, key[:]); err != nil {
		return f, err
	}
	f.payload = make([]byte, n)
	if _, err := io.ReadFull(c.br, f.payload); err != nil {
		return f, err
	}
	for i := range f.payload {
		f.payload[i] ^= key[i%4]
	}
	return f, nil
}

// wsError is a protocol violation and the close code that answers it.
type wsError struct {
	code uint16
	msg  string
}

func (e *wsError) Error() string { return fmt.Sprintf("websocket: %s (close %d)", e.msg, e.code) }

func protocolError(msg string) error { return &wsError{code: closeProtocolError, msg: msg} }

// readMessage returns the next text message, answering pings and closes
// on the way. A close from the peer, or a protocol error (answered with
// its close code), ends the connection with an error.
func (c *wsConn) readMessage() (string, error) {
	var msg []byte
	inMessage := false
	for {
		f, err := c.readFrame()
		if err != nil {
			var we *wsError
			if errors.As(err, &we) {
				c.close(we.code, we.msg)
			}
			return "", err
		}
		switch f.op {
		case opPing:
			if err := c.write(opPong, f.payload); err != nil {
				return "", err
			}
		case opPong:
		case opClose:
			code := uint16(closeNormal)
			if len(f.payload) >= 2 {
				code = binary.BigEndian.Uint16(f.payload)
			}
			c.close(code, "")
			return "", errWSClosed
		case opText, opBinary:
			if inMessage {
				c.close(closeProtocolError, "new message inside a fragmented one")
				return "", protocolError("interleaved message")
			}
			if f.op == opBinary {
				c.close(closeUnsupported, "text messages only")
				return "", &wsError{code: closeUnsupported, msg: "binary message"}
			}
			msg, inMessage = f.payload, true
		case opContinuation:
			if !inMessage {
				c.close(closeProtocolError, "continuation without a message")
				return "", protocolError("stray continuation")
			}
			if len(msg)+len(f.payload) > maxMessage {
				c.close(closeTooBig, "message too big")
				return "", &wsError{code: closeTooBig, msg: "message too big"}
			}
			msg = append(msg, f.payload...)
		default:
			c.close(closeProtocolError, "unknown opcode")
			return "", protocolError("unknown opcode")
		}
		if inMessage && f.fin && (f.op == opText || f.op == opContinuation) {
			return string(msg), nil
		}
	}
}

// write sends one unmasked frame.
func (c *wsConn) write(op byte, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return errWSClosed
	}
	return c.writeLocked(op, payload)
}

func (c *wsConn) writeLocked(op byte, payload []byte) error {
	hdr := make([]byte, 0, 10)
	hdr = append(hdr, 0x80|op)
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.conn.Write(append(hdr, payload...)); err != nil {
		return err
	}
	return nil
}

// close sends a close frame once and closes the connection.
func (c *wsConn) close(code uint16, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.done = true
	if len(reason) > 123 {
		reason = reason[:123]
	}
	p := binary.BigEndian.AppendUint16(nil, code)
	_ = c.writeLocked(opClose, append(p, reason...))
	c.conn.Close()
}
