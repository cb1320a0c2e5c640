// A Go net/http client for test_relay.sh: N POSTs of a chat request to URL (its own key sk-host), each
// answer printed as "STATUS BODY" on one line; with "stream", one request whose body is written raw.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func main() {
	url, n := os.Args[1], 1
	if len(os.Args) > 2 && os.Args[2] != "stream" {
		n, _ = strconv.Atoi(os.Args[2])
	}
	stream := len(os.Args) > 2 && os.Args[2] == "stream"
	for i := 0; i < n; i++ {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Authorization", "Bearer sk-host")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if stream {
			os.Stdout.Write(body)
			return
		}
		fmt.Printf("%d %s %s\n", resp.StatusCode, resp.Proto, strings.TrimSpace(string(body)))
	}
}
