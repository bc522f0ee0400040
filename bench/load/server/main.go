// Command server is `pinki serve` over a file ledger, for the load and fault
// benchmarks (bench/faults.sh) while the CLI's serve verb is built: it is the
// same wiring, in a few lines.
//
//	go run ./bench/load/server -ledger /tmp/l/.pinki/ledger.jsonl -listen 127.0.0.1:7447
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/tokens"
)

func main() {
	path := flag.String("ledger", ".pinki/ledger.jsonl", "file ledger")
	listen := flag.String("listen", httpapi.DefaultListen, "address to listen on")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here until shutdown")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "server:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := serve(*path, *listen); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func serve(path, listen string) error {
	store, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	svc := ledger.New(store, ledger.Options{Follow: true})
	defer svc.Close()
	if err := svc.Sync(context.Background()); err != nil { // fold the ledger before taking requests
		return err
	}
	srv := httpapi.NewServer(svc, tokens.OpenFile(tokens.PathFor(path), nil), httpapi.Options{Logf: log.Printf})
	defer srv.Close()
	ln, err := httpapi.Listen(listen)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("pinki serve: listening on http://%s, ledger %s", ln.Addr(), path)
	return httpapi.Serve(ctx, ln, srv, httpapi.ServeOptions{})
}
