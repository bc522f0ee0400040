package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/groupcommit"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/storetest"
)

// testURL is the database the tests use, from $PINKI_TEST_POSTGRES.
func testURL(t testing.TB) string {
	u := os.Getenv("PINKI_TEST_POSTGRES")
	if u == "" {
		t.Skip("PINKI_TEST_POSTGRES is not set: set it to a PostgreSQL URL, such as " +
			"postgres://postgres@127.0.0.1:5432/test?sslmode=disable, to run the PostgreSQL store tests")
	}
	return u
}

func testCtx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// freshSchema names a new schema for one test and drops it when the test
// ends (after the stores opened later are closed).
func freshSchema(t testing.TB) string {
	b := make([]byte, 6)
	rand.Read(b)
	name := "pinki_test_" + hex.EncodeToString(b)
	u := testURL(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	return name
}

// withApp returns the test URL with an application_name, to find the
// store's connections in pg_stat_activity.
func withApp(t testing.TB, app string) string {
	u, err := url.Parse(testURL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String()
}

// openStore opens a store on schema and closes it when the test ends.
func openStore(t testing.TB, dbURL, schema string, opts Options) *Store {
	t.Helper()
	opts.Schema = schema
	if opts.MaxConns == 0 {
		opts.MaxConns = 3 // tests run in parallel: stay well inside max_connections
	}
	s, err := Open(testCtx(t), dbURL, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStore runs the suite every store passes, each test on a fresh schema.
func TestStore(t *testing.T) {
	u := testURL(t)
	storetest.Run(t, func(t *testing.T) pinki.Store {
		return openStore(t, u, freshSchema(t), Options{})
	})
}

var (
	promise = storetest.Promise
	amend   = storetest.Amend
	readAll = storetest.ReadAll
)

func mustAppend(t *testing.T, s pinki.Store, events ...pinki.Event) pinki.Position {
	t.Helper()
	return storetest.MustAppend(t, s, events)
}

// TestMigrationsConcurrent opens stores on one new schema at once, as
// replicas starting together would: every Open succeeds, each migration is
// applied once, and opening again changes nothing.
func TestMigrationsConcurrent(t *testing.T) {
	u := testURL(t)
	schema := freshSchema(t)
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(testCtx(t), u, Options{Schema: schema, MaxConns: 2})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
	}
	s := openStore(t, u, schema, Options{})
	var rows, latest int
	if err := s.pool.QueryRow(testCtx(t), "SELECT count(*), max(version) FROM pinki_migrations").Scan(&rows, &latest); err != nil {
		t.Fatal(err)
	}
	if rows != len(migrations) || latest != migrations[len(migrations)-1].version {
		t.Fatalf("pinki_migrations holds %d rows up to version %d, want %d up to %d", rows, latest, len(migrations), migrations[len(migrations)-1].version)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	u := testURL(t)
	schema := freshSchema(t)
	s := openStore(t, u, schema, Options{})
	if _, err := s.pool.Exec(testCtx(t), "INSERT INTO pinki_migrations (version, name) VALUES (999, 'from the future')"); err != nil {
		t.Fatal(err)
	}
	_, err := Open(testCtx(t), u, Options{Schema: schema})
	if pinki.ErrorCode(err) != pinki.CodeUnavailable {
		t.Fatalf("Open on a newer schema = %v, want CodeUnavailable", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	testURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Open(ctx, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2", Options{})
	if pinki.ErrorCode(err) != pinki.CodeUnavailable {
		t.Fatalf("Open on a closed port = %v, want CodeUnavailable", err)
	}
	_, err = Open(ctx, "postgres://%zz", Options{})
	if pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("Open with a malformed url = %v, want CodeInvalid", err)
	}
}

// TestTwoReplicas runs two stores (two pools, as two server replicas would
// have) on one schema: they are one ledger. Appends through either read
// through both, a Wait on one wakes for an append through the other (by
// NOTIFY: polling is set too slow to be what wakes it), and fences hold
// across them.
func TestTwoReplicas(t *testing.T) {
	u := testURL(t)
	schema := freshSchema(t)
	a := openStore(t, u, schema, Options{PollInterval: time.Hour})
	b := openStore(t, u, schema, Options{PollInterval: time.Hour})
	pa := mustAppend(t, a, promise("x"))
	pb := mustAppend(t, b, promise("y"))
	if pb.Seq != pa.Seq+1 {
		t.Fatalf("appends through two replicas at seq %d and %d", pa.Seq, pb.Seq)
	}
	for _, s := range []*Store{a, b} {
		entries, _ := readAll(t, s, pinki.Position{})
		if len(entries) != 2 || entries[0].Event.ID != "x" || entries[1].Event.ID != "y" {
			t.Fatalf("a replica reads %d entries", len(entries))
		}
	}
	for i := 0; i < 3; i++ {
		_, end := readAll(t, b, pinki.Position{})
		woke := make(chan error, 1)
		go func() { woke <- b.Wait(testCtx(t), end) }()
		waitSynced(t, b)
		mustAppend(t, a, amend("x", i))
		select {
		case err := <-woke:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a Wait on one replica did not wake for an append through the other")
		}
	}
	// Racing on one obligation across replicas: one wins.
	_, seen := readAll(t, a, pinki.Position{})
	version := 4 // the creation and three amends
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			_, errs[i] = s.Append(testCtx(t), []pinki.Event{amend("x", 10+i)}, []pinki.Fence{{Subject: "x", Version: version, Seen: seen}})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else if pinki.ErrorCode(err) != pinki.CodeConflict {
			t.Fatalf("a losing replica got %v, want a conflict", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d writers on two replicas won, want 1", wins)
	}
	// Services over each replica agree.
	sa := ledger.New(a, ledger.Options{})
	sb := ledger.New(b, ledger.Options{})
	if _, err := sa.Resolve(testCtx(t), pinki.Identity{}, ledger.ResolveInput{ID: "y", As: pinki.Satisfied, Evidence: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	_, err := sb.Resolve(testCtx(t), pinki.Identity{}, ledger.ResolveInput{ID: "y", As: pinki.Cancelled, Reason: "b"})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("a second resolve through the other replica = %v, want a conflict", err)
	}
}

// waitSynced waits until the store's listener follows notifications.
func waitSynced(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.mu.Lock()
		synced := s.synced
		s.mu.Unlock()
		if synced {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the listener never connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReconnect terminates every connection of a store, as a database restart
// does: its appends and reads carry on (on fresh connections), and its
// listener reconnects, so a Wait still wakes for an append from elsewhere.
func TestReconnect(t *testing.T) {
	schema := freshSchema(t)
	app := "pinki_reconnect_" + schema
	s := openStore(t, withApp(t, app), schema, Options{PollInterval: time.Hour})
	other := openStore(t, testURL(t), schema, Options{})
	mustAppend(t, s, promise("before"))
	_, end := readAll(t, s, pinki.Position{})
	woke := make(chan error, 1)
	go func() { woke <- s.Wait(testCtx(t), end) }()
	waitSynced(t, s)

	terminate := func() {
		var n int
		if err := other.pool.QueryRow(testCtx(t),
			"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no connection of the store was found to terminate")
		}
	}
	terminate()
	mustAppend(t, other, promise("elsewhere"))
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a Wait across a lost connection did not wake for an append")
	}
	if pos := mustAppend(t, s, promise("after")); pos.Seq != 3 {
		t.Fatalf("append after the connections were terminated at seq %d", pos.Seq)
	}
	terminate()
	if entries, _ := readAll(t, s, pinki.Position{}); len(entries) != 3 {
		t.Fatalf("read %d entries after the connections were terminated", len(entries))
	}
	waitSynced(t, s)
}

// TestGroupCommitBatch commits one batch directly: requests are decided in
// order, and one fenced on a subject an earlier request of the batch touched
// conflicts while the others land, with dense seqs.
func TestGroupCommitBatch(t *testing.T) {
	s := openStore(t, testURL(t), freshSchema(t), Options{})
	p := mustAppend(t, s, promise("x"))
	req := func(events []pinki.Event, fences ...pinki.Fence) *request {
		return groupcommit.NewRequest(events, fences)
	}
	r1 := req([]pinki.Event{amend("x", 1)}, pinki.Fence{Subject: "x", Version: 1, Seen: p})
	r2 := req([]pinki.Event{amend("x", 2)}, pinki.Fence{Subject: "x", Version: 1, Seen: p})
	r3 := req([]pinki.Event{promise("y")}, pinki.Fence{Subject: "y", Version: 0, Seen: p})
	r4 := req([]pinki.Event{promise("y")}, pinki.Fence{Subject: "y", Version: 0, Seen: p})
	r5 := req([]pinki.Event{promise("z"), amend("z", 1)})
	r6 := req([]pinki.Event{amend("z", 2)}, pinki.Fence{Subject: "z", Version: 0, Seen: p}) // wrong version too
	s.commit([]*request{r1, r2, r3, r4, r5, r6})
	var got []string
	for _, r := range []*request{r1, r2, r3, r4, r5, r6} {
		res := r.Wait()
		if res.Err != nil {
			got = append(got, string(pinki.ErrorCode(res.Err)))
		} else {
			got = append(got, fmt.Sprint(res.Pos.Seq))
		}
	}
	if g := fmt.Sprint(got); g != "[2 conflict 3 conflict 5 conflict]" {
		t.Fatalf("batch answers %s", g)
	}
	entries, _ := readAll(t, s, pinki.Position{})
	for i, en := range entries {
		if en.Seq != int64(i+1) {
			t.Fatalf("entry %d has seq %d: seqs must be dense", i, en.Seq)
		}
	}
	if len(entries) != 5 {
		t.Fatalf("the ledger holds %d entries, want 5", len(entries))
	}
}

// TestVersionFence checks the fence's Version: a writer that saw another
// number of events than the ledger holds is refused, even at the right
// position.
func TestVersionFence(t *testing.T) {
	s := openStore(t, testURL(t), freshSchema(t), Options{})
	p := mustAppend(t, s, promise("x"), amend("x", 1))
	_, err := s.Append(testCtx(t), []pinki.Event{amend("x", 2)}, []pinki.Fence{{Subject: "x", Version: 1, Seen: p}})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("fence with a stale version = %v, want a conflict", err)
	}
	if _, err := s.Append(testCtx(t), []pinki.Event{amend("x", 2)}, []pinki.Fence{{Subject: "x", Version: 2, Seen: p}}); err != nil {
		t.Fatal(err)
	}
}

// TestUniqueConstraint checks that the database itself refuses a second
// event with one subject and version, and that the refusal reads as a
// conflict.
func TestUniqueConstraint(t *testing.T) {
	s := openStore(t, testURL(t), freshSchema(t), Options{})
	mustAppend(t, s, promise("x"))
	ctx := testCtx(t)
	_, err := s.pool.Exec(ctx, `INSERT INTO events (seq, subject, version, type, line) VALUES (2, 'x', 1, 'amend', '{}')`)
	if err == nil {
		t.Fatal("the database took a second event at version 1 of x")
	}
	if code := pinki.ErrorCode(mapError(ctx, err, "insert")); code != pinki.CodeConflict {
		t.Fatalf("unique violation maps to %s, want conflict", code)
	}
}

// TestReplaced reads from a position beyond the end of a ledger that was
// emptied (a restore, a reset): the position means nothing any more.
func TestReplaced(t *testing.T) {
	s := openStore(t, testURL(t), freshSchema(t), Options{})
	mustAppend(t, s, promise("a"), promise("b"))
	_, end := readAll(t, s, pinki.Position{})
	if _, err := s.pool.Exec(testCtx(t), "TRUNCATE events, obligations"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read(testCtx(t), end, func(pinki.Entry) error { return nil })
	if !errors.Is(err, pinki.ErrReplaced) {
		t.Fatalf("Read beyond the end of an emptied ledger = %v, want ErrReplaced", err)
	}
	_, err = s.Append(testCtx(t), []pinki.Event{promise("c")}, []pinki.Fence{{Subject: "c", Version: 0, Seen: end}})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("append fenced beyond the end = %v, want a conflict", err)
	}
	if err := s.Wait(testCtx(t), end); err != nil {
		t.Fatalf("Wait on a position the ledger no longer holds = %v, want nil (Read reports it)", err)
	}
}

// TestProjection checks the obligations table against the fold after writes
// through the service.
func TestProjection(t *testing.T) {
	s := openStore(t, testURL(t), freshSchema(t), Options{})
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	svc := ledger.New(s, ledger.Options{Clock: func() time.Time { return now }})
	ctx := testCtx(t)
	who := pinki.Identity{}
	must := func(_ ledger.Receipt, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(svc.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise, ID: "p", Text: "write", By: "alice", To: "bob",
		Until: "+24h", Meta: []byte(`{"k":1}`)}))
	must(svc.Amend(ctx, who, ledger.AmendInput{ID: "p", Until: "+48h", Reason: "more time"}))
	must(svc.Progress(ctx, who, ledger.ProgressInput{ID: "p", Phase: pinki.PhaseInProgress}))
	must(svc.Resolve(ctx, who, ledger.ResolveInput{ID: "p", As: pinki.Satisfied, Evidence: []string{"e"}}))
	must(svc.Create(ctx, who, ledger.CreateInput{Kind: fold.KindAgreement, ID: "deal", Text: "terms", By: "alice", To: "bob", Until: "+24h"}))
	must(svc.Accept(ctx, pinki.Identity{Seat: "bob"}, ledger.AcceptInput{ID: "deal", Rev: 1}))
	if _, err := s.Append(ctx, []pinki.Event{amend("ghost", 1)}, nil); err != nil {
		t.Fatal(err)
	}

	type row struct {
		kind, byS, toS, lapse string
		phase, resolvedAs     *string
		version, rev          int
		accepted              []string
		horizon               time.Time
		meta                  *string
	}
	get := func(id string) (row, bool) {
		var r row
		err := s.pool.QueryRow(ctx, `SELECT kind, by_seat, to_seat, lapse, phase, resolved_as, version, rev,
accepted_by, horizon, meta::text FROM obligations WHERE id = $1`, id).Scan(&r.kind, &r.byS, &r.toS, &r.lapse,
			&r.phase, &r.resolvedAs, &r.version, &r.rev, &r.accepted, &r.horizon, &r.meta)
		if errors.Is(err, pgx.ErrNoRows) {
			return r, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return r, true
	}
	p, ok := get("p")
	if !ok || p.kind != "promise" || p.byS != "alice" || p.toS != "bob" || p.lapse != "overdue" ||
		p.phase == nil || *p.phase != "in_progress" || p.resolvedAs == nil || *p.resolvedAs != "satisfied" ||
		p.version != 4 || p.rev != 4 || !p.horizon.Equal(now.Add(48*time.Hour)) || p.meta == nil || *p.meta != `{"k": 1}` {
		t.Fatalf("projection of p: %+v", p)
	}
	d, ok := get("deal")
	if !ok || d.kind != "agreement" || d.rev != 2 || d.version != 2 || fmt.Sprint(d.accepted) != "[bob]" || d.resolvedAs != nil {
		t.Fatalf("projection of deal: %+v", d)
	}
	if _, ok := get("ghost"); ok {
		t.Fatal("an id nothing declares has a row")
	}
}
