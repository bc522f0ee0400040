// Command load drives a pinki server with many concurrent seats over HTTP
// (keep-alive connections): each worker acts as one seat, creating promises
// to other seats, reporting progress on them, resolving them and reading
// them, in the proportions of -mix. It prints acknowledged writes and reads
// per second and their latency percentiles.
//
//	go run ./bench/load -url http://127.0.0.1:7447 -ledger /tmp/l/.pinki/ledger.jsonl \
//	    -seats 50 -duration 20s -mix create=30,progress=30,resolve=20,read=20 -acked /tmp/acked.txt
//
// With -ledger it mints one token per seat in the ledger's token file (the
// server re-reads it); with -tokens it reads "SEAT TOKEN" lines instead.
// -acked logs every acknowledged write as "SEQ ID TYPE" (fsync'd before the
// tool exits); -verify checks such a log against a ledger file: every
// acknowledged event must be on its line, and every line must decode. Exit
// status 1 when either fails.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/tokens"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://"+httpapi.DefaultListen, "server URL")
	flag.StringVar(&cfg.ledger, "ledger", "", "ledger file whose token file gets one new token per seat")
	flag.StringVar(&cfg.tokens, "tokens", "", `file of "SEAT TOKEN" lines (instead of -ledger)`)
	flag.IntVar(&cfg.seats, "seats", 50, "number of seats")
	flag.IntVar(&cfg.workers, "workers", 0, "concurrent workers, spread over the seats (default: one per seat)")
	flag.DurationVar(&cfg.duration, "duration", 20*time.Second, "how long to run")
	flag.StringVar(&cfg.mix, "mix", "create=30,progress=30,resolve=20,read=20", "weights of create, progress, resolve, read, list")
	flag.StringVar(&cfg.acked, "acked", "", "log acknowledged writes to this file")
	flag.StringVar(&cfg.prefix, "prefix", "", "seat name prefix (default: a fresh one per run)")
	verify := flag.Bool("verify", false, "check -acked against -ledger and exit")
	flag.Parse()
	var err error
	if *verify {
		err = verifyAcked(cfg.ledger, cfg.acked)
	} else {
		err = run(cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

type config struct {
	url, ledger, tokens, mix, acked, prefix string
	seats, workers                          int
	duration                                time.Duration
}

type op int

const (
	opCreate op = iota
	opProgress
	opResolve
	opRead
	opList
	nOps
)

var opNames = [nOps]string{"create", "progress", "resolve", "read", "list"}

func parseMix(s string) ([nOps]int, error) {
	var w [nOps]int
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(val)
		if !ok || err != nil || n < 0 {
			return w, fmt.Errorf("-mix %q: want name=weight,…", s)
		}
		found := false
		for i, on := range opNames {
			if on == name {
				w[i], found = n, true
			}
		}
		if !found {
			return w, fmt.Errorf("-mix: unknown operation %q (create, progress, resolve, read, list)", name)
		}
	}
	return w, nil
}

type seat struct{ name, token string }

func seatsFor(cfg config) ([]seat, error) {
	if cfg.tokens != "" {
		data, err := os.ReadFile(cfg.tokens)
		if err != nil {
			return nil, err
		}
		var out []seat
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) == 2 {
				out = append(out, seat{f[0], f[1]})
			}
		}
		if len(out) == 0 {
			return nil, errors.New("no SEAT TOKEN lines in " + cfg.tokens)
		}
		return out, nil
	}
	if cfg.ledger == "" {
		return nil, errors.New("give -ledger (to mint tokens) or -tokens")
	}
	prefix := cfg.prefix
	if prefix == "" {
		prefix = fmt.Sprintf("load-%d", time.Now().UnixNano()%1e6)
	}
	store := tokens.OpenFile(tokens.PathFor(cfg.ledger), nil)
	var out []seat
	for i := 0; i < cfg.seats; i++ {
		name := fmt.Sprintf("%s/seat-%02d", prefix, i)
		secret, _, err := store.Add(context.Background(), name, pinki.RoleSeat)
		if err != nil {
			return nil, err
		}
		out = append(out, seat{name, secret})
	}
	return out, nil
}

// stats is one worker's tally.
type stats struct {
	writes, reads []time.Duration
	idempotent    int
	errors        map[string]int
	samples       map[string]string // the first message of each error class
}

// ackLog writes acknowledged writes to a file from one goroutine.
type ackLog struct {
	ch   chan string
	done chan error
}

func openAckLog(path string) (*ackLog, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	a := &ackLog{ch: make(chan string, 65536), done: make(chan error, 1)}
	go func() {
		w := bufio.NewWriterSize(f, 1<<16)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var err error
		for {
			select {
			case line, ok := <-a.ch:
				if !ok {
					if e := w.Flush(); err == nil {
						err = e
					}
					if e := f.Sync(); err == nil {
						err = e
					}
					if e := f.Close(); err == nil {
						err = e
					}
					a.done <- err
					return
				}
				w.WriteString(line)
			case <-tick.C:
				if e := w.Flush(); err == nil && e != nil {
					err = e
				}
				f.Sync()
			}
		}
	}()
	return a, nil
}

func (a *ackLog) add(rc ledger.Receipt, typ string) {
	if a != nil && rc.Seq > 0 && !rc.Idempotent {
		a.ch <- fmt.Sprintf("%d %s %s\n", rc.Seq, rc.ID, typ)
	}
}

func (a *ackLog) close() error {
	if a == nil {
		return nil
	}
	close(a.ch)
	return <-a.done
}

func run(cfg config) error {
	weights, err := parseMix(cfg.mix)
	if err != nil {
		return err
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		return errors.New("-mix: all weights are zero")
	}
	seats, err := seatsFor(cfg)
	if err != nil {
		return err
	}
	workers := cfg.workers
	if workers <= 0 {
		workers = len(seats)
	}
	acks, err := openAckLog(cfg.acked)
	if err != nil {
		return err
	}
	transport := &http.Transport{MaxIdleConns: workers * 2, MaxIdleConnsPerHost: workers * 2, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.duration)
	defer cancel()
	results := make([]stats, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			me := seats[i%len(seats)]
			c, err := httpapi.NewClient(cfg.url, me.token, hc)
			if err != nil {
				panic(err)
			}
			results[i] = work(ctx, c, me, seats, weights, total, uint64(i), acks)
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := acks.close(); err != nil {
		return fmt.Errorf("ack log: %v", err)
	}
	var all stats
	all.errors, all.samples = map[string]int{}, map[string]string{}
	for _, r := range results {
		for k, v := range r.samples {
			all.samples[k] = v
		}
		all.writes = append(all.writes, r.writes...)
		all.reads = append(all.reads, r.reads...)
		all.idempotent += r.idempotent
		for k, v := range r.errors {
			all.errors[k] += v
		}
	}
	fmt.Printf("pinki load: %s for %.1fs, %d seats, %d workers, mix %s\n", cfg.url, elapsed.Seconds(), len(seats), workers, cfg.mix)
	report("acknowledged writes", all.writes, elapsed)
	report("reads", all.reads, elapsed)
	if all.idempotent > 0 {
		fmt.Printf("idempotent writes (nothing appended): %d\n", all.idempotent)
	}
	if len(all.errors) > 0 {
		keys := make([]string, 0, len(all.errors))
		for k := range all.errors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("errors %s: %d (such as: %s)\n", k, all.errors[k], all.samples[k])
		}
	}
	return nil
}

func report(what string, ds []time.Duration, elapsed time.Duration) {
	if len(ds) == 0 {
		fmt.Printf("%-20s 0\n", what)
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	pct := func(p float64) string {
		return fmt.Sprintf("%.2fms", float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds())/1000)
	}
	fmt.Printf("%-20s %8d  %9.0f/s  p50 %s  p95 %s  p99 %s  max %s\n", what, len(ds),
		float64(len(ds))/elapsed.Seconds(), pct(0.50), pct(0.95), pct(0.99), pct(1))
}

// work is one worker: it acts as seat me until ctx ends.
func work(ctx context.Context, c *httpapi.Client, me seat, seats []seat, weights [nOps]int, total int, seed uint64, acks *ackLog) stats {
	rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	st := stats{errors: map[string]int{}, samples: map[string]string{}}
	var open []string // ids this worker created and has not resolved
	var mine []string // every id this worker created (for reads)
	step := 0
	who := pinki.Identity{}
	for ctx.Err() == nil {
		pick := rng.IntN(total)
		var o op
		for o = 0; o < nOps; o++ {
			if pick < weights[o] {
				break
			}
			pick -= weights[o]
		}
		if (o == opProgress || o == opResolve) && len(open) == 0 || o == opRead && len(mine) == 0 {
			o = opCreate
		}
		step++
		start := time.Now()
		var rc ledger.Receipt
		var err error
		write := true
		typ := opNames[o]
		switch o {
		case opCreate:
			to := seats[rng.IntN(len(seats))].name
			rc, err = c.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise, Text: fmt.Sprintf("deliver item %d", step),
				To: to, Until: "+1h"})
			if err == nil {
				open = append(open, rc.ID)
				mine = append(mine, rc.ID)
			}
			typ = "promise"
		case opProgress:
			id := open[rng.IntN(len(open))]
			phases := []pinki.Phase{pinki.PhaseAcknowledged, pinki.PhaseInProgress, pinki.PhaseBlocked}
			rc, err = c.Progress(ctx, who, ledger.ProgressInput{ID: id, Phase: phases[step%len(phases)], Note: fmt.Sprintf("step %d", step)})
		case opResolve:
			i := rng.IntN(len(open))
			id := open[i]
			open[i] = open[len(open)-1]
			open = open[:len(open)-1]
			rc, err = c.Resolve(ctx, who, ledger.ResolveInput{ID: id, As: pinki.Satisfied, Evidence: []string{"commit:" + strconv.Itoa(step)}})
		case opRead:
			write = false
			_, err = c.Get(ctx, who, ledger.Query{ID: mine[rng.IntN(len(mine))]})
		case opList:
			write = false
			_, err = c.List(ctx, who, ledger.Filter{Party: me.name, Limit: 20})
		}
		d := time.Since(start)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			class := opNames[o] + " " + string(pinki.ErrorCode(err))
			st.errors[class]++
			if _, ok := st.samples[class]; !ok {
				st.samples[class] = err.Error()
			}
			if pinki.ErrorCode(err) == pinki.CodeUnavailable {
				time.Sleep(50 * time.Millisecond) // the server is down: do not spin
			}
			continue
		}
		if !write {
			st.reads = append(st.reads, d)
			continue
		}
		if rc.Idempotent {
			st.idempotent++
			continue
		}
		st.writes = append(st.writes, d)
		acks.add(rc, typ)
	}
	return st
}

// verifyAcked checks that every acknowledged write in the log is on its line
// of the ledger: the line number is the sequence number the server answered,
// and the line names the same id with the same type.
func verifyAcked(ledgerPath, ackedPath string) error {
	if ledgerPath == "" || ackedPath == "" {
		return errors.New("-verify needs -ledger and -acked")
	}
	type ack struct {
		id, typ string
	}
	want := map[int64]ack{}
	data, err := os.ReadFile(ackedPath)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		seq, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return fmt.Errorf("ack log line %q", line)
		}
		want[seq] = ack{f[1], f[2]}
	}
	lf, err := os.Open(ledgerPath)
	if err != nil {
		return err
	}
	defer lf.Close()
	sc := bufio.NewScanner(lf)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var seq int64
	found, bad, undecodable := 0, 0, 0
	for sc.Scan() {
		seq++
		e, err := pinki.DecodeLine(sc.Bytes())
		if err != nil && len(strings.TrimSpace(sc.Text())) > 0 {
			undecodable++
			fmt.Fprintf(os.Stderr, "line %d does not decode: %v\n", seq, err)
		}
		a, ok := want[seq]
		if !ok {
			continue
		}
		if err != nil || e.Key() != a.id || string(e.Type) != a.typ {
			bad++
			if bad <= 10 {
				fmt.Fprintf(os.Stderr, "line %d: acknowledged %s %s, ledger holds %s\n", seq, a.typ, a.id, sc.Text())
			}
			continue
		}
		found++
		delete(want, seq)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for s, a := range want {
		bad++
		if bad <= 10 {
			fmt.Fprintf(os.Stderr, "line %d: acknowledged %s %s, the ledger has only %d lines\n", s, a.typ, a.id, seq)
		}
	}
	fmt.Printf("verify: %d acknowledged events, %d on their lines, %d missing or different; ledger: %d lines, %d that do not decode\n",
		found+bad, found, bad, seq, undecodable)
	if bad > 0 {
		return fmt.Errorf("%d acknowledged events are not in the ledger", bad)
	}
	if undecodable > 0 {
		return fmt.Errorf("%d ledger lines do not decode", undecodable)
	}
	return nil
}
