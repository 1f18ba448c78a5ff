// Package apitest is a WebSocket client for tests of the API's /ws: the
// client side of RFC 6455 written independently of the server's code
// (handshake with a random key and the accept check, masked frames,
// fragmentation, ping, close), so a test talks to the server the way a
// browser does. It uses only the standard library.
package apitest

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Conn is a client connection.
type Conn struct {
	c  net.Conn
	br *bufio.Reader
	// Pongs counts the pong frames received.
	Pongs int
}

// Dial opens a WebSocket to rawURL (ws://host:port/path or http://...).
func Dial(rawURL string) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		return nil, err
	}
	var k [16]byte
	rand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	path := u.RequestURI()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: http://%s\r\n\r\n", path, u.Host, key, u.Host)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, fmt.Errorf("handshake: status %s", resp.Status)
	}
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if got, want := resp.Header.Get("Sec-WebSocket-Accept"), base64.StdEncoding.EncodeToString(h[:]); got != want {
		c.Close()
		return nil, fmt.Errorf("handshake: Sec-WebSocket-Accept %q, want %q", got, want)
	}
	if !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") {
		c.Close()
		return nil, fmt.Errorf("handshake: Upgrade %q", resp.Header.Get("Upgrade"))
	}
	return &Conn{c: c, br: br}, nil
}

// WriteFrame sends one masked frame.
func (c *Conn) WriteFrame(fin bool, op byte, payload []byte) error {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	hdr := []byte{b0}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	hdr = append(hdr, mask[:]...)
	body := make([]byte, len(payload))
	for i := range payload {
		body[i] = payload[i] ^ mask[i%4]
	}
	_, err := c.c.Write(append(hdr, body...))
	return err
}

// WriteText sends a text message in one frame.
func (c *Conn) WriteText(s string) error { return c.WriteFrame(true, 0x1, []byte(s)) }

// Ping sends a ping.
func (c *Conn) Ping(data string) error { return c.WriteFrame(true, 0x9, []byte(data)) }

// ErrClosed is returned by ReadText after a close frame; CloseCode says
// which.
var ErrClosed = errors.New("websocket closed by the server")

// CloseError carries the server's close code.
type CloseError struct{ Code int }

func (e *CloseError) Error() string {
	return fmt.Sprintf("websocket closed by the server (code %d)", e.Code)
}
func (e *CloseError) Unwrap() error { return ErrClosed }

// ReadText returns the next text message within timeout, counting pongs
// on the way. The server's frames must be unmasked.
func (c *Conn) ReadText(timeout time.Duration) (string, error) {
	c.c.SetReadDeadline(time.Now().Add(timeout))
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			return "", err
		}
		if h[1]&0x80 != 0 {
			return "", errors.New("server frame is masked")
		}
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return "", err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return "", err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(c.br, p); err != nil {
			return "", err
		}
		switch h[0] & 0x0F {
		case 0x1:
			if h[0]&0x80 == 0 {
				return "", errors.New("fragmented server message (unexpected)")
			}
			return string(p), nil
		case 0xA:
			c.Pongs++
		case 0x8:
			code := 1005
			if len(p) >= 2 {
				code = int(binary.BigEndian.Uint16(p))
			}
			return "", &CloseError{Code: code}
		}
	}
}

// Close sends a normal close frame and closes the connection.
func (c *Conn) Close() error {
	c.WriteFrame(true, 0x8, binary.BigEndian.AppendUint16(nil, 1000))
	return c.c.Close()
}

// Raw is the underlying connection, for tests that send malformed frames.
func (c *Conn) Raw() net.Conn { return c.c }
