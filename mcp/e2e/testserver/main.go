// Command testserver serves pinki's MCP server over a file ledger for the
// end-to-end tests in package mcp (mcp/e2e_test.go), which build it: over
// stdio bound to -seat, or over streamable HTTP with the bearer tokens given
// by -token. It is a test fixture, not the pinki CLI.
//
//	testserver -ledger L -seat S [-versions V,V]
//	testserver -ledger L -http 127.0.0.1:0 -token tok=SEAT... [-stateless] [-versions V,V]
//
// In HTTP mode it prints "listening on http://ADDR/mcp" on stdout once it
// accepts connections, and serves until killed.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/mcp"
)

type tokenFlag map[string]pinki.Identity

func (t tokenFlag) String() string { return fmt.Sprint(map[string]pinki.Identity(t)) }

func (t tokenFlag) Set(v string) error {
	tok, seat, ok := strings.Cut(v, "=")
	if !ok || tok == "" || seat == "" {
		return fmt.Errorf("want TOKEN=SEAT, got %q", v)
	}
	t[tok] = pinki.Identity{Seat: seat, Role: pinki.RoleSeat}
	return nil
}

func main() {
	path := flag.String("ledger", "", "ledger file")
	seat := flag.String("seat", "", "seat to bind (stdio)")
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	stateless := flag.Bool("stateless", false, "stateless streamable HTTP")
	versions := flag.String("versions", "", "comma-separated protocol versions to support (default: all the SDK knows)")
	tokens := tokenFlag{}
	flag.Var(tokens, "token", "TOKEN=SEAT, repeatable (HTTP)")
	flag.Parse()
	if err := run(*path, *seat, *addr, *stateless, *versions, tokens); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

func run(path, seat, addr string, stateless bool, versions string, tokens tokenFlag) error {
	store, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	api := ledger.New(store, ledger.Options{})
	opts := mcp.Options{Version: "e2e", SDK: &sdk.ServerOptions{}}
	if versions != "" {
		opts.SDK.SupportedProtocolVersions = strings.Split(versions, ",")
	}
	if addr == "" {
		srv, err := mcp.NewServer(api, pinki.Identity{Seat: seat}, &opts)
		if err != nil {
			return err
		}
		return srv.Run(context.Background(), &sdk.StdioTransport{})
	}
	authn := func(r *http.Request) (pinki.Identity, error) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if who, ok := tokens[tok]; ok {
			return who, nil
		}
		return pinki.Identity{}, pinki.Errorf(pinki.CodeUnauthenticated, "no valid bearer token")
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.HTTPHandler(api, authn, &mcp.HTTPOptions{Server: opts,
		Streamable: sdk.StreamableHTTPOptions{Stateless: stateless}}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, mux)
}
