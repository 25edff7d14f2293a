package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// serveEcho is the baseline: a plain gorilla/websocket server, one
// goroutine per connection reading a frame and writing its answer (one
// network write per frame, or with batch one per answer), that
// answers each request frame with frames of the sizes in pattern (those of
// groundwire's answer to the same question), typed like them (sources,
// stream…, stream_end, response) and carrying the request's id, so the
// clients treat both servers alike.
func serveEcho(ctx context.Context, pattern string, batch bool, stdout io.Writer) error {
	var sizes []int
	for _, f := range strings.Split(pattern, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("bad -pattern %q", pattern)
		}
		sizes = append(sizes, n)
	}
	if len(sizes) < 2 {
		return fmt.Errorf("-pattern needs at least two sizes, got %q", pattern)
	}
	up := websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096, CheckOrigin: func(*http.Request) bool { return true }}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		var bc *batchConn
		ws, err := up.Upgrade(hijacker{w, func(c net.Conn) net.Conn {
			bc = &batchConn{Conn: c}
			return bc
		}}, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var req struct {
				ID string `json:"id"`
			}
			json.Unmarshal(data, &req)
			bc.batching = batch
			for i, n := range sizes {
				typ := "stream"
				switch i {
				case 0:
					typ = "sources"
				case len(sizes) - 2:
					typ = "stream_end"
				case len(sizes) - 1:
					typ = "response"
				}
				if err := ws.WriteMessage(websocket.TextMessage, echoFrame(typ, req.ID, n)); err != nil {
					return
				}
			}
			if !batch {
				continue
			}
			if err := bc.flush(); err != nil {
				return
			}
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "echo listening on http://%s\n", ln.Addr())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// echoFrame is a JSON frame of type typ about id, padded to n bytes.
func echoFrame(typ, id string, n int) []byte {
	head := `{"type":"` + typ + `","id":"` + id + `"`
	if typ == "stream_end" {
		head += `,"reason":"done"`
	}
	pad := n - len(head) - len(`,"pad":""}`)
	if pad < 0 {
		return []byte(head + "}")
	}
	return []byte(head + `,"pad":"` + strings.Repeat("x", pad) + `"}`)
}

// batchConn gathers the frames of one answer and writes them in one
// network write (as groundwire's writer does with the frames it finds
// queued), so that the baseline pays one system call per answer, not one
// per frame.
type batchConn struct {
	net.Conn
	batching bool
	buf      []byte
}

func (c *batchConn) Write(p []byte) (int, error) {
	if !c.batching {
		return c.Conn.Write(p)
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *batchConn) flush() error {
	c.batching = false
	_, err := c.Conn.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// hijacker hands the Upgrader a wrapped connection.
type hijacker struct {
	http.ResponseWriter
	wrap func(net.Conn) net.Conn
}

func (h hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := h.ResponseWriter.(http.Hijacker).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return h.wrap(c), brw, nil
}
