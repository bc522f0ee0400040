package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/postgres"
	"github.com/pinki-ledger/pinki/tokens"
	"github.com/pinki-ledger/pinki/verify"
)

// location is where the ledger an invocation uses lives.
type location int

const (
	// inFile is the file ledger (--ledger, $PINKI_LEDGER, discovery).
	inFile location = iota
	// inStore is a PostgreSQL database, opened directly (--store,
	// $PINKI_STORE).
	inStore
	// onServer is a pinki server, reached through its HTTP API (--server,
	// $PINKI_SERVER, with $PINKI_TOKEN).
	onServer
)

// storeSideAnnotation marks the verbs that work on the store itself (serve,
// token): they never go through a server, so $PINKI_SERVER does not apply to
// them and --server is refused.
const storeSideAnnotation = "pinki.store-side"

func storeSide(cmd *cobra.Command) *cobra.Command {
	annotate(cmd, storeSideAnnotation)
	return cmd
}

// annotate sets an annotation flag on cmd.
func annotate(cmd *cobra.Command, key string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[key] = "true"
}

// annotated reports whether cmd or one of its parents carries the flag.
func annotated(cmd *cobra.Command, key string) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[key] == "true" {
			return true
		}
	}
	return false
}

// env reads an environment variable (tests replace the environment).
func (a *app) env(key string) string {
	if a.getenv != nil {
		return a.getenv(key)
	}
	return os.Getenv(key)
}

// locate decides where the ledger is: --ledger, --store or --server (one at
// most), else $PINKI_SERVER (not for the store-side verbs), else
// $PINKI_STORE, else the file ledger.
//
// Errors: CodeInvalid for two of the flags at once, or --server on a
// store-side verb.
func (a *app) locate(cmd *cobra.Command) error {
	var given []string
	for _, f := range []struct{ name, value string }{
		{"--ledger", a.ledgerFlag}, {"--store", a.storeFlag}, {"--server", a.serverFlag}} {
		if strings.TrimSpace(f.value) != "" {
			given = append(given, f.name)
		}
	}
	if len(given) > 1 {
		return usageError("%s cannot go together: each names the ledger", strings.Join(given, " and "))
	}
	side := annotated(cmd, storeSideAnnotation)
	if side && strings.TrimSpace(a.serverFlag) != "" {
		return (&pinki.Error{Code: pinki.CodeInvalid, Field: "server",
			Message: cmd.CommandPath() + " works on the store itself, never through a server: --server does not apply"}).
			WithHint("run it where the ledger is, with --ledger PATH or --store postgres://…")
	}
	pick := func(flag, name string) string {
		if v := strings.TrimSpace(flag); v != "" {
			return v
		}
		return strings.TrimSpace(a.env(name))
	}
	switch {
	case strings.TrimSpace(a.serverFlag) != "":
		a.at, a.url = onServer, strings.TrimSpace(a.serverFlag)
	case strings.TrimSpace(a.storeFlag) != "":
		a.at, a.url = inStore, strings.TrimSpace(a.storeFlag)
	case strings.TrimSpace(a.ledgerFlag) != "":
		a.at = inFile
	case !side && pick("", "PINKI_SERVER") != "":
		a.at, a.url = onServer, pick("", "PINKI_SERVER")
	case pick("", "PINKI_STORE") != "":
		a.at, a.url = inStore, pick("", "PINKI_STORE")
	default:
		a.at = inFile
	}
	return nil
}

// redact hides a URL's password (a message never shows it).
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// backend is the ledger API one invocation talks to, where it is (for
// messages), and how to let it go.
type backend struct {
	api   ledger.API
	where string
	close func()
}

// api returns the ledger API, opening it on first use. This is the one place
// a ledger.API is made: every verb goes through it. Against a server it is
// an HTTP client (whose token's seat must be the one --as names); else the
// service over the file ledger or the PostgreSQL store.
//
// Errors: *pinki.Error (CodeUnavailable when the store cannot be opened or
// the server reached; CodeUnauthenticated without $PINKI_TOKEN or with a bad
// one; CodeForbidden when --as is not the token's seat).
func (a *app) api() (ledger.API, error) {
	if a.backend == nil {
		var b *backend
		var err error
		switch a.at {
		case onServer:
			b, err = a.openServer()
		case inStore:
			b, err = a.openStore()
		default:
			b, err = a.openFile(a.ledgerPath(true))
		}
		if err != nil {
			return nil, err
		}
		a.backend = b
	}
	return a.backend.api, nil
}

// where is the ledger the invocation uses, as messages name it: the file's
// path, or the URL without its password.
func (a *app) where() string {
	switch {
	case a.backend != nil:
		return a.backend.where
	case a.at != inFile:
		return redact(a.url)
	}
	return a.ledgerPath(true)
}

// serviceOptions are the options of a service the CLI runs itself: lines it
// cannot decode are reported on stderr as it meets them and counted (a read
// then exits 3); --now fixes its clock.
func (a *app) serviceOptions(where string) ledger.Options {
	return ledger.Options{
		OnUnknownLine: func(seq int64, raw []byte, err error) {
			a.unknown++
			a.warn("%s line %d: %v", where, seq, err)
		},
		Clock: a.clock(),
	}
}

// clock is --now as a clock, or nil (the wall clock).
func (a *app) clock() func() time.Time {
	if !a.fixed {
		return nil
	}
	now := a.now
	return func() time.Time { return now }
}

// openFile opens the file ledger at path and the service over it. A torn
// last line moved aside is reported.
func (a *app) openFile(path string) (*backend, error) {
	store, err := a.openJSONL(path)
	if err != nil {
		return nil, err
	}
	svc := ledger.New(store, a.serviceOptions(path))
	return &backend{api: svc, where: path, close: func() {
		svc.Close()
		store.Close()
	}}, nil
}

// openJSONL opens the file store at path, reporting a torn last line moved
// aside.
func (a *app) openJSONL(path string) (*jsonl.Store, error) {
	store, err := jsonl.Open(path, jsonl.Options{
		OnQuarantine: func(quarantine string, size int) {
			a.warn("moved a torn last line (%d bytes) of %s to %s", size, path, quarantine)
		},
	})
	if err != nil {
		return nil, pinki.AsError(err)
	}
	return store, nil
}

// openTimeout bounds connecting to PostgreSQL and migrating it.
const openTimeout = 30 * time.Second

// openPostgres opens the PostgreSQL store at the invocation's URL. maxConns
// bounds its pool (0: pgxpool's default).
//
// Errors: CodeInvalid for a URL that is not postgres://; those of
// postgres.Open.
func (a *app) openPostgres(maxConns int32) (*postgres.Store, error) {
	u, err := url.Parse(a.url)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return nil, (&pinki.Error{Code: pinki.CodeInvalid, Field: "store",
			Message: "store " + quote(redact(a.url)) + " is not a postgres:// URL"}).
			WithHint("such as postgres://pinki@db.example.org/pinki; a file ledger is --ledger PATH")
	}
	ctx, cancel := context.WithTimeout(a.ctx, openTimeout)
	defer cancel()
	store, err := postgres.Open(ctx, a.url, postgres.Options{MaxConns: maxConns})
	if err != nil {
		pe := pinki.AsError(err)
		if ctx.Err() != nil {
			pe = pinki.Errorf(pinki.CodeUnavailable, "postgres: cannot connect to %s within %s", redact(a.url), openTimeout)
		}
		return nil, pe
	}
	return store, nil
}

// openStore opens the PostgreSQL store and the service over it.
func (a *app) openStore() (*backend, error) {
	store, err := a.openPostgres(4)
	if err != nil {
		return nil, err
	}
	where := redact(a.url)
	svc := ledger.New(store, a.serviceOptions(where))
	return &backend{api: svc, where: where, close: func() {
		svc.Close()
		store.Close()
	}}, nil
}

// openServer returns the HTTP client for the server, sending $PINKI_TOKEN,
// after checking that the seat the user named (--as, $PINKI_SEAT) is the
// token's.
func (a *app) openServer() (*backend, error) {
	where := redact(a.url)
	token := strings.TrimSpace(a.env("PINKI_TOKEN"))
	if token == "" {
		return nil, (&pinki.Error{Code: pinki.CodeUnauthenticated, Field: "token",
			Message: "no token for the server " + where + ": set $PINKI_TOKEN"}).
			WithHint("`pinki token add --seat SEAT` on the server's host prints one")
	}
	c, err := httpapi.NewClient(a.url, token, nil)
	if err != nil {
		return nil, err
	}
	if err := c.CheckAs(a.ctx, a.claimedSeat()); err != nil {
		return nil, err
	}
	a.client = c
	return &backend{api: c, where: where, close: func() {}}, nil
}

// claimedSeat is the seat the user says they act as, checked against a
// server's token: --as or $PINKI_SEAT, except for the verifiers (verify, a2a
// watch), which take only --as (a verifier is a seat of its own).
func (a *app) claimedSeat() string {
	if a.cmd != nil && annotated(a.cmd, verifierAnnotation) {
		return strings.TrimSpace(a.asFlag)
	}
	return a.seat
}

// whoAmI is the identity of the server's token.
//
// Errors: those of Client.WhoAmI; CodeInternal when not on a server.
func (a *app) whoAmI() (pinki.Identity, error) {
	if _, err := a.api(); err != nil {
		return pinki.Identity{}, err
	}
	if a.client == nil {
		return pinki.Identity{}, pinki.Errorf(pinki.CodeInternal, "not talking to a server")
	}
	w, err := a.client.WhoAmI(a.ctx)
	return pinki.Identity{Seat: w.Seat, Role: w.Role}, err
}

// unknownLines is how many lines this version does not understand the reads
// left out: counted here, or reported by the server.
func (a *app) unknownLines() int {
	n := a.unknown
	if a.client != nil {
		n = max(n, a.client.UnknownLines())
	}
	return n
}

func (a *app) close() {
	if a.backend != nil {
		a.backend.close()
		a.backend = nil
	}
}

// tokenStore opens the token store of the invocation's ledger: the token
// file beside the file ledger, or the tokens table of the PostgreSQL store.
// It returns where the tokens are (for messages) and how to let it go.
//
// Errors: those of opening the PostgreSQL store.
func (a *app) tokenStore() (tokens.Store, string, func(), error) {
	if a.at == inStore {
		store, err := a.openPostgres(2)
		if err != nil {
			return nil, "", nil, err
		}
		return store.Tokens(a.clock()), redact(a.url), func() { store.Close() }, nil
	}
	path := tokensPath(a.ledgerPath(true))
	return tokens.OpenFile(path, a.clock()), path, func() {}, nil
}

// tokensPath is the token file beside the file ledger at ledger, named the
// way the ledger is (./.pinki/tokens.json beside ./.pinki/ledger.jsonl).
func tokensPath(ledger string) string {
	p := tokens.PathFor(ledger)
	if strings.HasPrefix(ledger, "./") && !strings.HasPrefix(p, ".."+string(filepath.Separator)) && !filepath.IsAbs(p) {
		p = "./" + p
	}
	return p
}

// localLedger is the file ledger's path, where the files a verifier and the
// seat map keep live beside: the ledger itself, or for a ledger in
// PostgreSQL or on a server, the file ledger's place here (--ledger is
// refused with them; $PINKI_LEDGER, else the nearest .pinki/, else
// ./.pinki/).
func (a *app) localLedger() string {
	if a.at == inFile {
		return a.where()
	}
	return a.ledgerPath(true)
}

// statePath is a verifier's state file (name "state" for verify, "a2a-state"
// for a2a watch): .pinki/verify/NAME.json beside the file ledger; for a
// ledger in PostgreSQL or on a server, in the local .pinki/verify/ under a
// name that says which (NAME-HOST_PORT….json), so that verifiers of
// different ledgers keep apart.
func (a *app) statePath(name string) string {
	dir := filepath.Dir(verify.DefaultStatePath(a.localLedger()))
	if a.at == inFile {
		return filepath.Join(dir, name+".json")
	}
	return filepath.Join(dir, name+"-"+a.remoteKey()+".json")
}

// remoteKey names a remote ledger in a file name: its host, port, path and
// (for PostgreSQL) search_path, every other character an underscore.
func (a *app) remoteKey() string {
	u, err := url.Parse(a.url)
	if err != nil {
		return "remote"
	}
	key := u.Host + u.Path
	if sp := u.Query().Get("search_path"); sp != "" {
		key += "-" + sp
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, strings.TrimRight(key, "/"))
}

// ledgerPath is the ledger file (SPEC §3): --ledger, else $PINKI_LEDGER, else
// (when discover is set) the nearest .pinki/ledger.jsonl walking up from the
// working directory, else ./.pinki/ledger.jsonl. A discovered path is shown
// relative to the working directory.
func (a *app) ledgerPath(discover bool) string {
	if a.ledgerFlag != "" {
		return a.ledgerFlag
	}
	if env := a.env("PINKI_LEDGER"); env != "" {
		return env
	}
	cwd, err := os.Getwd()
	if err != nil {
		return filepath.Join(".", jsonl.DirName, jsonl.FileName)
	}
	p := filepath.Join(cwd, jsonl.DirName, jsonl.FileName)
	if discover {
		p = jsonl.Locate("", "", cwd)
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil {
		return p
	}
	if !strings.HasPrefix(rel, "..") {
		rel = "./" + rel
	}
	return rel
}
