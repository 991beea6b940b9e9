// Command relay is the bench's floor for the bridged rows: the least a
// stdio-to-daemon relay must do. It reads one JSON-RPC line from stdin,
// POSTs it to the daemon's /mcp on a keep-alive connection with the
// bearer token and a client id, and writes the answer as one line; no
// parsing, no retries, no progress, no restart. What gasoline-mcp costs
// beyond this is what the "× floor" column of the bridged rows shows.
//
//	relay -url http://127.0.0.1:PORT -token TOKEN [-client ID]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	url := flag.String("url", "", "the daemon's base URL")
	token := flag.String("token", "", "the daemon's bearer token")
	client := flag.String("client", "bench-relay", "X-Gasoline-Client of every request")
	flag.Parse()
	hc := &http.Client{Transport: &http.Transport{Proxy: nil}}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := relay(hc, *url, *token, *client, line, out); err != nil {
				fmt.Fprintln(os.Stderr, "relay:", err)
				os.Exit(1)
			}
		}
		if err != nil {
			return
		}
	}
}

func relay(hc *http.Client, url, token, client string, line []byte, out *bufio.Writer) error {
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", bytes.NewReader(line))
	if err != nil {
		return err
	}
	req.Header["Authorization"] = []string{"Bearer " + token}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json"}
	req.Header["X-Gasoline-Client"] = []string{client}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	out.Write(bytes.TrimRight(body, "\n"))
	out.WriteByte('\n')
	return out.Flush()
}
