package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// The process tests re-run this test binary as writer processes: the
// environment variable writerEnv selects a mode of TestHelperWriter.
const writerEnv = "PINKI_JSONL_TEST_WRITER"

// TestHelperWriter is the body of a writer process; as a test of its own it
// does nothing.
//
// Modes (arguments in the environment):
//
//	promises  create COUNT promises with minted ids from a deliberately
//	          crowded id space (so processes collide and fences decide),
//	          printing "ack ID" for each; then try to resolve each of the
//	          SHARED obligations, printing "won ID" for each resolve that
//	          landed and failing on any error but a conflict.
//	loop      append forever: single creations and, every few rounds, a big
//	          batch (one Append of hundreds of events); after each Append
//	          returns, write its ids to the ACKS file and fsync it.
//	tear      take the ledger's lock as a writer does, write part of a line,
//	          print "ready", and wait to be killed.
func TestHelperWriter(t *testing.T) {
	mode := os.Getenv(writerEnv)
	if mode == "" {
		t.Skip("the body of the writer processes that the process tests start")
	}
	if err := runWriter(mode); err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runWriter(mode string) error {
	path := os.Getenv("LEDGER")
	name := os.Getenv("WRITER")
	ctx := context.Background()
	if mode == "tear" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		unlock, err := lockFile(path+".lock", true, 10*time.Second)
		if err != nil {
			return err
		}
		defer unlock()
		appendBytes(path, []byte(promiseLine("torn-" + name)[:60]))
		fmt.Println("ready")
		time.Sleep(time.Minute)
		return fmt.Errorf("tear writer was not killed")
	}
	s, err := Open(path, Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	seed, _ := strconv.ParseUint(os.Getenv("SEED"), 10, 64)
	cs := &conflictCounter{Store: s}
	svc := ledger.New(cs, ledger.Options{Random: crowded{rand.New(rand.NewPCG(seed, 1))}})
	switch mode {
	case "promises":
		n, _ := strconv.Atoi(os.Getenv("COUNT"))
		out := bufio.NewWriter(os.Stdout)
		defer out.Flush()
		for i := 0; i < n; i++ {
			r, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise,
				Text: fmt.Sprintf("task %d of %s", i, name), By: name, To: "boss", Until: "+1h"})
			if err != nil {
				return err
			}
			fmt.Fprintln(out, "ack", r.ID)
		}
		for _, id := range strings.Fields(os.Getenv("SHARED")) {
			_, err := svc.Resolve(ctx, pinki.Identity{}, ledger.ResolveInput{ID: id, As: pinki.Satisfied,
				Evidence: []string{"by " + name}})
			switch {
			case err == nil:
				fmt.Fprintln(out, "won", id)
			case pinki.ErrorCode(err) != pinki.CodeConflict:
				return fmt.Errorf("resolve %s: %w", id, err)
			}
		}
		fmt.Fprintln(out, "conflicts", cs.n)
		return nil
	case "loop":
		acks, err := os.OpenFile(os.Getenv("ACKS"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		for i := 0; ; i++ {
			var ids []string
			if i%4 == 3 {
				var batch []pinki.Event
				for j := 0; j < 1000; j++ {
					id := fmt.Sprintf("%s-%d-%d", name, i, j)
					batch = append(batch, promise(id))
					ids = append(ids, id)
				}
				if _, err := svc.Import(ctx, pinki.Identity{}, batch, true); err != nil {
					return err
				}
			} else {
				r, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise,
					ID: fmt.Sprintf("%s-%d", name, i), Text: "loop", By: name, To: "boss", Until: "+1h"})
				if err != nil {
					return err
				}
				ids = append(ids, r.ID)
			}
			// Acknowledged: Append returned. Only now is it reported, durably.
			if _, err := acks.WriteString(strings.Join(ids, "\n") + "\n"); err != nil {
				return err
			}
			if err := acks.Sync(); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown writer mode %q", mode)
}

// conflictCounter counts the appends its store refused on a fence.
type conflictCounter struct {
	*Store
	n int
}

func (c *conflictCounter) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	pos, err := c.Store.Append(ctx, events, fences)
	if pinki.ErrorCode(err) == pinki.CodeConflict {
		c.n++
	}
	return pos, err
}

// crowded is a random source for minted ids with eight values per byte: the
// six-hex-digit space shrinks to 512 ids, so concurrent writers mint the same
// id often enough for the creation fence to be exercised.
type crowded struct{ r *rand.Rand }

func (c crowded) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c.r.IntN(8))
	}
	return len(p), nil
}

// writer starts a writer process in mode with extra environment.
func writer(t *testing.T, mode string, stdout io.Writer, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{writerEnv + "=" + mode}, env...)...)
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait() // done copying its output (an error if the test waited already)
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("writer %s stderr: %s", mode, stderr.String())
		}
	})
	return cmd
}

// TestProcessesConcurrent runs writer processes appending promises to one
// ledger at once, through the service and the file store, with colliding
// minted ids and contested resolves: every acknowledged id is in the ledger
// exactly once, every line parses, and each contested obligation has exactly
// one resolve, the one its writer was told had landed.
func TestProcessesConcurrent(t *testing.T) {
	procs, count := 8, 25
	if testing.Short() {
		procs, count = 4, 10
	}
	path := ledgerPath(t)
	s := open(t, path, Options{})
	svc := ledger.New(s, ledger.Options{})
	var shared []string
	for i := 0; i < 5; i++ {
		r, err := svc.Create(ctx(t), pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise,
			ID: fmt.Sprintf("shared-%d", i), Text: "contested", By: "anyone", To: "boss", Until: "+1h"})
		if err != nil {
			t.Fatal(err)
		}
		shared = append(shared, r.ID)
	}
	outs := make([]*bytes.Buffer, procs)
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		outs[i] = new(bytes.Buffer)
		cmds[i] = writer(t, "promises", outs[i], "LEDGER="+path, fmt.Sprintf("WRITER=w%d", i),
			fmt.Sprintf("COUNT=%d", count), fmt.Sprintf("SEED=%d", i+1), "SHARED="+strings.Join(shared, " "))
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	acked := map[string]int{}
	won := map[string]int{}
	conflicts := 0
	for i, out := range outs {
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) == 2 && f[0] == "ack":
				acked[f[1]]++
			case len(f) == 2 && f[0] == "won":
				won[f[1]] = i
			case len(f) == 2 && f[0] == "conflicts":
				n, _ := strconv.Atoi(f[1])
				conflicts += n
			default:
				t.Fatalf("writer %d printed %q", i, l)
			}
		}
	}
	if len(acked) != procs*count {
		t.Fatalf("%d distinct ids acknowledged, want %d", len(acked), procs*count)
	}
	entries, _ := readAll(t, s, pinki.Position{})
	created := map[string]int{}
	resolvedBy := map[string][]string{}
	for _, en := range entries {
		if en.Err != nil {
			t.Fatalf("line %d does not parse: %v: %s", en.Seq, en.Err, en.Raw)
		}
		switch en.Event.Type {
		case pinki.TypePromise:
			created[en.Event.ID]++
		case pinki.TypeResolve:
			resolvedBy[en.Event.Subject] = append(resolvedBy[en.Event.Subject], en.Event.Evidence[0])
		}
	}
	for id, n := range acked {
		if n != 1 || created[id] != 1 {
			t.Fatalf("%s acknowledged %d times, created %d times; want once each", id, n, created[id])
		}
	}
	if len(created) != procs*count+len(shared) {
		t.Fatalf("the ledger creates %d ids, want %d", len(created), procs*count+len(shared))
	}
	t.Logf("%d processes, %d promises, %d appends refused on a fence (and retried or reported)", procs, len(acked), conflicts)
	for _, id := range shared {
		w, ok := won[id]
		if !ok || len(resolvedBy[id]) != 1 || resolvedBy[id][0] != fmt.Sprintf("by w%d", w) {
			t.Fatalf("%s: resolves %v, reported won by writer %d (%t); want exactly that one", id, resolvedBy[id], w, ok)
		}
	}
}

// TestProcessesCrash kills writer processes at random moments, round after
// round, on one ledger; some rounds also kill a writer that has written part
// of a line under the lock. After each round every acknowledged event is in
// the ledger, every line parses, and every torn tail went to quarantine.
func TestProcessesCrash(t *testing.T) {
	rounds, perRound := 20, 3
	if testing.Short() {
		rounds, perRound = 6, 2
	}
	dir := t.TempDir()
	path := filepath.Join(dir, DirName, FileName)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	acked := map[string]bool{}
	forced := 0
	for round := 0; round < rounds; round++ {
		var cmds []*exec.Cmd
		if round%3 == 1 {
			ready := newLineWaiter()
			tear := writer(t, "tear", ready, "LEDGER="+path, fmt.Sprintf("WRITER=r%d", round))
			if err := ready.wait("ready", 20*time.Second); err != nil {
				t.Fatalf("round %d: tear writer: %v", round, err)
			}
			forced++
			// Writers started now queue on the lock the tear writer holds.
			for k := 0; k < perRound; k++ {
				cmds = append(cmds, loopWriter(t, dir, path, round, k))
			}
			tear.Process.Signal(syscall.SIGKILL)
			tear.Wait()
		} else {
			for k := 0; k < perRound; k++ {
				cmds = append(cmds, loopWriter(t, dir, path, round, k))
			}
		}
		time.Sleep(time.Duration(20+rng.IntN(60)) * time.Millisecond)
		for _, cmd := range cmds {
			time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, cmd := range cmds {
			cmd.Wait()
		}
		for k := 0; k < perRound; k++ {
			for _, id := range readAcks(t, ackPath(dir, round, k)) {
				acked[id] = true
			}
		}
		verifyLedger(t, path, acked, round)
	}
	frags := quarantined(t, path)
	if len(frags) < forced {
		t.Fatalf("%d fragments quarantined, but %d tails were torn on purpose", len(frags), forced)
	}
	for _, f := range frags {
		if strings.Contains(f, "\n") {
			t.Fatalf("a quarantined fragment holds a whole line: %q", f)
		}
	}
	t.Logf("%d rounds, %d events acknowledged, %d torn tails quarantined (%d forced)", rounds, len(acked), len(frags), forced)
}

func ackPath(dir string, round, k int) string {
	return filepath.Join(dir, fmt.Sprintf("acks-%d-%d", round, k))
}

func loopWriter(t *testing.T, dir, path string, round, k int) *exec.Cmd {
	return writer(t, "loop", io.Discard, "LEDGER="+path, fmt.Sprintf("WRITER=r%dw%d", round, k),
		"ACKS="+ackPath(dir, round, k), fmt.Sprintf("SEED=%d", round*10+k))
}

// readAcks returns the ids in a writer's acknowledgement file, ignoring a
// last line the kill cut short.
func readAcks(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	} else {
		return nil
	}
	return strings.Fields(string(b))
}

// verifyLedger reads the ledger with a fresh store (as the next process
// would): every line parses, no id is created twice, every acknowledged id is
// there, and no torn tail is left in the file.
func verifyLedger(t *testing.T, path string, acked map[string]bool, round int) {
	t.Helper()
	s := open(t, path, Options{})
	entries, end := readAll(t, s, pinki.Position{})
	created := map[string]bool{}
	for _, en := range entries {
		if en.Err != nil {
			t.Fatalf("round %d: line %d does not parse: %v: %q", round, en.Seq, en.Err, en.Raw)
		}
		if created[en.Event.ID] {
			t.Fatalf("round %d: %s created twice", round, en.Event.ID)
		}
		created[en.Event.ID] = true
	}
	for id := range acked {
		if !created[id] {
			t.Fatalf("round %d: acknowledged %s is not in the ledger", round, id)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() != end.Mark {
		t.Fatalf("round %d: the ledger is %d bytes, its last whole line ends at %d: a torn tail was left", round, fi.Size(), end.Mark)
	}
	s.Close()
}

// lineWaiter is a stdout that tells when a given line was printed.
type lineWaiter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func newLineWaiter() *lineWaiter { return &lineWaiter{lines: make(chan string, 16)} }

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.lines <- string(w.buf.Next(i + 1)[:i]):
		default:
		}
	}
}

func (w *lineWaiter) wait(line string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case l := <-w.lines:
			if l == line {
				return nil
			}
		case <-deadline:
			return fmt.Errorf("no %q within %s", line, timeout)
		}
	}
}
