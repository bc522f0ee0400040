// Package postgres is the PostgreSQL ledger store: the shared store for many
// hosts behind one pinki server or several replicas of it. Events are rows of
// the events table in ledger order (dense seq, assigned under an advisory
// lock so that commit order is seq order), each holding the exact line the
// file ledger would hold; an obligations table projects them for SQL users.
// Concurrent appends in one process are committed together; fences are
// checked under the lock and backed by a unique (subject, version)
// constraint; Wait follows LISTEN/NOTIFY, so it wakes for appends made by
// any process on the database.
package postgres

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/internal/groupcommit"
)

// Options configure a Store. The zero value is usable.
type Options struct {
	// Schema is the schema holding pinki's tables, created if missing.
	// Empty: the connection's current schema (the first of its search_path
	// that exists, usually public).
	Schema string
	// MaxConns bounds the connection pool (the listener Wait uses is one
	// more). 0: pgxpool's default.
	MaxConns int32
	// PollInterval is how often the end of the ledger is read again behind
	// LISTEN/NOTIFY, in case a notification went missing; while the listener
	// is disconnected, waiters read it every PollInterval/10. 0: 5s.
	PollInterval time.Duration
	// PageSize is how many rows Read fetches per query. 0: 1000.
	PageSize int
	// CommitTimeout bounds one group commit. 0: 30s.
	CommitTimeout time.Duration
}

// Store is a PostgreSQL ledger. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	connCfg *pgx.ConnConfig // for the listener's own connection
	opts    Options
	schema  string
	channel string // NOTIFY channel of this schema's ledger
	lockKey int64  // advisory lock serializing appends

	queue *groupcommit.Queue

	mu         sync.Mutex
	latest     int64         // highest seq known committed
	synced     bool          // the listener is connected and latest is current
	notify     chan struct{} // closed and replaced when latest or synced change
	listening  bool
	listenStop context.CancelFunc
	listenDone chan struct{}
}

type (
	request = groupcommit.Request
	result  = groupcommit.Result
)

// Open connects to the database at url (a PostgreSQL URL or DSN), applies
// the schema migrations (once, even when several processes start at once),
// and returns a Store.
//
// Errors: CodeInvalid for a malformed url; CodeUnavailable when the database
// cannot be reached or migrated; the context's error when ctx ends first.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if opts.PollInterval <= 0 {
		opts.PollInterval = 5 * time.Second
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 1000
	}
	if opts.CommitTimeout <= 0 {
		opts.CommitTimeout = 30 * time.Second
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, pinki.Invalid("url", "the database url does not parse: %v", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{opts.Schema}.Sanitize()
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, mapError(ctx, err, "cannot connect")
	}
	schema := opts.Schema
	if schema == "" {
		var current *string
		if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&current); err != nil {
			pool.Close()
			return nil, mapError(ctx, err, "cannot connect")
		}
		if current == nil {
			pool.Close()
			return nil, pinki.Errorf(pinki.CodeUnavailable, "postgres: no schema of the search_path exists: set one, or name one in the options")
		}
		schema = *current
	}
	if err := migrate(ctx, pool, schema, opts.Schema != ""); err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, connCfg: cfg.ConnConfig.Copy(), opts: opts, schema: schema,
		channel: channelName(schema), lockKey: lockKey("append", schema), notify: make(chan struct{})}
	s.queue = groupcommit.Start(s.commit, maxBatch, s.errClosed)
	return s, nil
}

// channelName is the NOTIFY channel for the ledger in schema (at most 63
// bytes, PostgreSQL's identifier limit).
func channelName(schema string) string {
	if c := "pinki." + schema; len(c) <= 63 {
		return c
	}
	return fmt.Sprintf("pinki.%016x", uint64(lockKey("channel", schema)))
}

// Schema is the schema holding the store's tables.
func (s *Store) Schema() string { return s.schema }

// Pool is the store's connection pool, for callers that query the
// obligations projection.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

func (s *Store) errClosed() error {
	return pinki.Errorf(pinki.CodeUnavailable, "postgres ledger %s is closed", s.schema)
}

// Close stops the committer after the appends already under way are
// decided, stops the listener (waking every Wait, which then returns a
// CodeUnavailable error), and closes the pool. It is idempotent.
func (s *Store) Close() error {
	if !s.queue.Close() {
		return nil
	}
	s.mu.Lock()
	stop, listenDone := s.listenStop, s.listenDone
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-listenDone
	}
	s.pool.Close()
	return nil
}

// Append implements pinki.Store. Concurrent appends are committed together,
// in one transaction; each request's fences are checked in order against
// the ledger and the requests before it in the batch, and a request whose
// fence fails is refused alone.
//
// Errors: CodeConflict when a fence fails; CodeUnavailable when the
// database cannot be reached (when the connection broke during the commit
// and the outcome could not be read back, the message says so); the
// context's error when ctx ends before the append was queued.
func (s *Store) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	return s.queue.Append(ctx, events, fences)
}

// maxBatch bounds the requests committed in one transaction.
const maxBatch = 1024

// Read implements pinki.Store: the rows after from.Seq up to the end of the
// ledger as it was when Read began, fetched in pages.
//
// Errors: an error wrapping pinki.ErrReplaced when from lies beyond the end
// of the ledger (the database was reset or restored); CodeUnavailable when
// the database cannot be read; fn's error; the context's error.
func (s *Store) Read(ctx context.Context, from pinki.Position, fn func(pinki.Entry) error) (pinki.Position, error) {
	if s.queue.Closed() {
		return from, s.errClosed()
	}
	end, err := s.maxSeq(ctx, s.pool)
	if err != nil {
		return from, mapError(ctx, err, "cannot read the end of the ledger")
	}
	if from.Seq > end {
		return from, fmt.Errorf("postgres ledger %s holds %d events, fewer than the %d read before: %w", s.schema, end, from.Seq, pinki.ErrReplaced)
	}
	s.observe(end)
	type row struct {
		seq  int64
		line string
	}
	var dec pinki.Decoder
	at := from.Seq
	page := make([]row, 0, min(s.opts.PageSize, int(end-at)))
	for at < end {
		err := s.retry(ctx, func() error {
			page = page[:0]
			rows, err := s.pool.Query(ctx, "SELECT seq, line FROM events WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3",
				at, end, s.opts.PageSize)
			if err != nil {
				return err
			}
			var r row
			_, err = pgx.ForEachRow(rows, []any{&r.seq, &r.line}, func() error {
				page = append(page, r)
				return nil
			})
			return err
		})
		if err != nil {
			return from, mapError(ctx, err, "cannot read the ledger")
		}
		if len(page) == 0 {
			return from, fmt.Errorf("postgres ledger %s lost events %d to %d while they were read: %w", s.schema, at+1, end, pinki.ErrReplaced)
		}
		for _, r := range page {
			if err := ctx.Err(); err != nil {
				return from, err
			}
			e, err := dec.Decode([]byte(r.line))
			en := pinki.Entry{Seq: r.seq, Event: e}
			if err != nil {
				en = pinki.Entry{Seq: r.seq, Err: err, Raw: []byte(r.line)}
			}
			if err := fn(en); err != nil {
				return from, err
			}
			at = r.seq
		}
	}
	return pinki.Position{Seq: end}, nil
}

// querier is what maxSeq needs: a pool, a connection or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// maxSeq is the end of the ledger as committed now. On the pool, it is
// retried once on fresh connections when its connection was broken.
func (s *Store) maxSeq(ctx context.Context, q querier) (int64, error) {
	var end int64
	err := s.retryIf(ctx, q == querier(s.pool), func() error {
		return q.QueryRow(ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&end)
	})
	return end, err
}

// retry runs the read fn, and once more on fresh connections when it failed
// because its connection was broken (the database restarted since the pool
// last used it).
func (s *Store) retry(ctx context.Context, fn func() error) error {
	return s.retryIf(ctx, true, fn)
}

func (s *Store) retryIf(ctx context.Context, ok bool, fn func() error) error {
	err := fn()
	if err != nil && ok && brokenConn(ctx, err) {
		s.pool.Reset()
		err = fn()
	}
	return err
}

// Fetch implements pinki.Fetcher: the events at the given sequence numbers,
// in the order asked, in one query.
//
// Errors: an error wrapping pinki.ErrReplaced when a line is not in the
// ledger; CodeUnavailable when the database cannot be read; the context's
// error.
func (s *Store) Fetch(ctx context.Context, lines []pinki.LineRef) ([]pinki.Entry, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	seqs := make([]int64, len(lines))
	for i, l := range lines {
		seqs[i] = l.Seq
	}
	found := make(map[int64]string, len(lines))
	err := s.retry(ctx, func() error {
		rows, err := s.pool.Query(ctx, "SELECT seq, line FROM events WHERE seq = ANY($1)", seqs)
		if err != nil {
			return err
		}
		var seq int64
		var line string
		_, err = pgx.ForEachRow(rows, []any{&seq, &line}, func() error {
			found[seq] = line
			return nil
		})
		return err
	})
	if err != nil {
		return nil, mapError(ctx, err, "cannot read the ledger")
	}
	var dec pinki.Decoder
	out := make([]pinki.Entry, len(lines))
	for i, seq := range seqs {
		line, ok := found[seq]
		if !ok {
			return nil, fmt.Errorf("postgres ledger %s holds no event %d: %w", s.schema, seq, pinki.ErrReplaced)
		}
		e, err := dec.Decode([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("postgres ledger %s event %d: %v: %w", s.schema, seq, err, pinki.ErrReplaced)
		}
		out[i] = pinki.Entry{Seq: seq, Event: e}
	}
	return out, nil
}

// observe records that the ledger holds seq, waking waiters if that is news.
func (s *Store) observe(seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq > s.latest {
		s.latest = seq
		s.wakeLocked()
	}
}

// settle records the end of the ledger as read by the listener, in order
// with the notifications it follows, so it may also lower what is known: a
// ledger that was emptied or restored does not keep waiters spinning on
// entries it no longer holds.
func (s *Store) settle(end int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if end != s.latest {
		s.latest = end
		s.wakeLocked()
	}
}

func (s *Store) wakeLocked() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// Wait implements pinki.Store. It follows the ledger's NOTIFY channel on a
// connection of its own (started by the first Wait, reconnected when it
// breaks), so it wakes for appends made through any Store on the database.
// While the listener is not connected, it reads the end of the ledger every
// PollInterval/10. It also returns when the ledger no longer holds after
// (it ends before it), so that the caller's next Read reports ErrReplaced.
//
// Errors: CodeUnavailable after Close, or when the database cannot be read
// while the listener is down; the context's error.
func (s *Store) Wait(ctx context.Context, after pinki.Position) error {
	s.startListener()
	poll := max(s.opts.PollInterval/10, 10*time.Millisecond)
	for {
		s.mu.Lock()
		ch, latest, synced, closed := s.notify, s.latest, s.synced, s.queue.Closed()
		s.mu.Unlock()
		if closed {
			return s.errClosed()
		}
		if latest > after.Seq {
			return nil
		}
		var tick <-chan time.Time
		if !synced || latest < after.Seq {
			// The listener may miss appends, or not have heard of after yet:
			// read the end of the ledger. An end before after means the
			// ledger no longer holds that position (emptied, restored): the
			// next Read reports it.
			end, err := s.maxSeq(ctx, s.pool)
			if err != nil {
				return mapError(ctx, err, "cannot read the end of the ledger")
			}
			if end != after.Seq {
				s.observe(end)
				return nil
			}
			if !synced {
				tick = time.After(poll)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.queue.Closing():
			return s.errClosed()
		case <-ch:
		case <-tick:
		}
	}
}

// startListener starts the listener once.
func (s *Store) startListener() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listening || s.queue.Closed() {
		return
	}
	s.listening = true
	ctx, cancel := context.WithCancel(context.Background())
	s.listenStop, s.listenDone = cancel, make(chan struct{})
	go s.listen(ctx)
}

// listen keeps a connection LISTENing on the ledger's channel. Each time it
// connects, it reads the end of the ledger after LISTEN took effect, so
// that, while it stays connected, latest and the notifications to come
// account for every append.
func (s *Store) listen(ctx context.Context) {
	defer close(s.listenDone)
	backoff := 20 * time.Millisecond
	for ctx.Err() == nil {
		if synced, _ := s.listenOnce(ctx); synced {
			backoff = 20 * time.Millisecond // it worked for a while: reconnect at once
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// listenOnce connects, listens and follows notifications until the
// connection breaks or ctx ends. synced reports whether it got as far as
// following notifications.
func (s *Store) listenOnce(ctx context.Context) (synced bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.connCfg)
	if err != nil {
		return false, err
	}
	defer func() {
		s.setSynced(false)
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return false, err
	}
	end, err := s.maxSeq(ctx, conn)
	if err != nil {
		return false, err
	}
	s.settle(end)
	s.setSynced(true)
	for {
		wctx, cancel := context.WithTimeout(ctx, s.opts.PollInterval)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if seq, perr := strconv.ParseInt(n.Payload, 10, 64); perr == nil {
				s.observe(seq)
			}
		case ctx.Err() != nil:
			return true, ctx.Err()
		case wctx.Err() != nil && !conn.IsClosed():
			// A quiet spell: read the end, in case a notification went missing.
			end, err := s.maxSeq(ctx, conn)
			if err != nil {
				return true, err
			}
			s.settle(end)
		default:
			return true, err
		}
	}
}

func (s *Store) setSynced(synced bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced != synced {
		s.synced = synced
		s.wakeLocked()
	}
}

var (
	_ pinki.Store   = (*Store)(nil)
	_ pinki.Fetcher = (*Store)(nil)
)
