package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	a2asdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/jackc/pgx/v5"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/a2a/a2atest"
	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/ledger"
)

// `pinki serve` runs here as a child process (the test binary, which
// testscript.Main put on PATH as pinki); the CLI verbs that talk to it run
// in-process, each a fresh app with its own environment.

// result is what one command line printed and its exit status.
type result struct {
	out, err string
	code     int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.out, r.err)
}

// cli runs one command line in-process. env is its whole environment as far
// as pinki's variables go: nothing leaks in from the test's, and
// $PINKI_LEDGER is a new temporary path unless env sets it, so that nothing
// is discovered or written outside the test's folders.
func cli(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errs bytes.Buffer
	ledger := env["PINKI_LEDGER"]
	if ledger == "" {
		ledger = filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	}
	getenv := func(k string) string {
		if k == "PINKI_LEDGER" {
			return ledger
		}
		return env[k]
	}
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, ctx: context.Background(), getenv: getenv}
	code := a.run(args)
	return result{out.String(), errs.String(), code}
}

// must runs a command line that must exit 0, and returns its stdout.
func must(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	r := cli(t, env, args...)
	if r.code != 0 {
		t.Fatalf("pinki %s: %s", strings.Join(args, " "), r)
	}
	return r.out
}

// server is a `pinki serve` child process.
type server struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{}
}

// childEnv is the environment of a child pinki: the test's, without pinki's
// variables, and with a short race-detector exit (see TestScripts).
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PINKI_") {
			env = append(env, kv)
		}
	}
	if os.Getenv("GORACE") == "" {
		env = append(env, "GORACE=atexit_sleep_ms=50")
	}
	return env
}

// startServer starts `pinki GLOBAL... serve --listen 127.0.0.1:0` and waits
// until it listens. When the test ends it is stopped with SIGTERM, and must
// exit 0 having said so.
func startServer(t *testing.T, global ...string) *server {
	t.Helper()
	bin, err := exec.LookPath("pinki")
	if err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(t.TempDir(), "addr")
	args := append(slices.Clone(global), "serve", "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	s := &server{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, exited: make(chan struct{})}
	s.cmd.Env = childEnv()
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(addrFile); err == nil {
			s.url = strings.TrimSpace(string(b))
			break
		}
		select {
		case <-s.exited:
			t.Fatalf("pinki serve exited: %v\n%s", s.cmd.ProcessState, s.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("pinki serve does not listen:\n%s", s.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if want := "pinki: serving on " + s.url + "\n"; !strings.HasPrefix(s.stderr.String(), want) {
		t.Errorf("stderr starts\n%s\nwant %q", s.stderr, want)
	}
	return s
}

// stop ends the server with SIGTERM: it must exit 0 after saying so, and
// remove its address file.
func (s *server) stop(t *testing.T) {
	select {
	case <-s.exited:
	default:
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
			t.Errorf("pinki serve did not stop on SIGTERM:\n%s", s.stderr)
			return
		}
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(s.stderr.String(), "pinki: stopped serving on "+s.url+"\n") {
		t.Errorf("pinki serve: exit %d\n%s", code, s.stderr)
	}
}

// addToken makes a token with `pinki token add` against the store named by
// the global flags, and returns it.
func addToken(t *testing.T, seat, role string, global ...string) string {
	t.Helper()
	args := append(slices.Clone(global), "token", "add", "--seat", seat, "--role", role)
	return strings.TrimSpace(must(t, nil, args...))
}

// testPostgres returns the URL of a fresh schema in $PINKI_TEST_POSTGRES
// (dropped when the test ends), or skips the test when it is unset.
func testPostgres(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PINKI_TEST_POSTGRES")
	if base == "" {
		t.Skip("PINKI_TEST_POSTGRES is not set: set it to a PostgreSQL URL, such as " +
			"postgres://postgres@127.0.0.1:5432/test?sslmode=disable, to run the PostgreSQL tests of pinki serve, import and export")
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "pinki_cli_" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("PINKI_TEST_POSTGRES: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// The clock of the comparison: the server runs with --now at it, and the
// local ledger is written with --now at it, so that both ledgers are the same
// bytes.
const (
	t0    = "2026-09-01T12:00:00Z"
	tNext = "2026-09-03T00:00:00Z"
)

// step is one command line of the comparison, run as seat (a seat's token on
// the server, --as locally; "observer" and "admin" are tokens of those
// roles, and nothing locally, where every read sees everything), exiting
// with want.
type step struct {
	as   string
	args string // split on spaces; '~' within a word stands for a space
	want int
	read bool   // a read: --now passes through to the server
	now  string // the read's --now, default t0
}

func (s step) words(vars map[string]string) []string {
	var out []string
	for _, w := range strings.Fields(s.args) {
		for k, v := range vars {
			w = strings.ReplaceAll(w, "{"+k+"}", v)
		}
		out = append(out, strings.ReplaceAll(w, "~", " "))
	}
	return out
}

// matchSteps is a ledger's life: a moved-in history, each write verb, every
// kind of refusal (exit 2), a conflict (exit 4), idempotent retries, and
// every read verb.
var matchSteps = []step{
	{as: "admin", args: "import {dir}/history.jsonl"},
	{as: "alice", args: `promise ship~it --id p1 --to bob --until +2h --meta {"k":1}`},
	{as: "alice", args: `promise ship~it --id p1 --to bob --until +2h --meta {"k":1} --json`},
	{as: "bob", args: "request count~the~boxes --id r1 --by alice --until +1d --schema {dir}/schema.json --schema-id count.v1"},
	{as: "alice", args: "propose pair~on~it --id ag --by alice --to bob --until +1d"},
	{as: "bob", args: "accept ag --rev 1"},
	{as: "alice", args: "accept ag --rev 1", want: 4},
	{as: "alice", args: "accept ag --rev 2 --json"},
	{as: "alice", args: "amend p1 --until +3h --reason ci~is~slow"},
	{as: "alice", args: "progress p1 in_progress --note started"},
	{as: "bob", args: `bind p1 --target {"kind":"ticket","ref":"T-1"}`},
	{as: "bob", args: "assess p1 --state disputed --note not~yet"},
	{as: "bob", args: "assess p1 --state disputed --note not~yet --json"},
	{as: "alice", args: "resolve p1 --satisfied --evidence https://example.org/1 --json"},
	{as: "alice", args: "resolve p1 --satisfied --evidence https://example.org/1"},
	{as: "alice", args: "resolve p1 --cancelled --reason changed~my~mind", want: 4},
	{as: "bob", args: "resolve r1 --satisfied --response 3 --schema-id count.v1 --digest sha256:00", want: 2},
	{as: "alice", args: "resolve r1 --satisfied --response -3 --schema-id count.v1 --digest {digest}", want: 2},
	{as: "alice", args: "resolve r1 --satisfied --response 3 --schema-id count.v1 --digest {digest}"},
	{as: "alice", args: "amend nope --until +1h", want: 2},
	{as: "alice", args: "promise not~mine --by bob --to carol --until +1h", want: 2},
	{as: "alice", args: "promise too~late --to bob --until 2020-01-01T00:00:00Z", want: 2},
	{as: "alice", args: "resolve ag --failed", want: 2},
	{as: "alice", args: "import {dir}/history.jsonl", want: 2},
	{as: "admin", args: "import {dir}/history.jsonl", want: 4},
	{read: true, args: "ls"},
	{read: true, args: "ls --all"},
	{read: true, args: "ls --all --json"},
	{read: true, args: "ls --overdue", now: tNext},
	{read: true, args: "ls --all --by carol"},
	{read: true, args: "ls --state satisfied,expired --to bob --json"},
	{read: true, args: "show p1"},
	{read: true, args: "show p1 --json", now: tNext},
	{read: true, args: "show r1"},
	{read: true, args: "show ag --json"},
	{read: true, args: "show old-1"},
	{read: true, args: "show nope", want: 2},
	{read: true, args: "export"},
	{read: true, args: "export --format jsonl --state satisfied"},
	{read: true, args: "export --format events"},
	{read: true, args: "export --format xml", want: 2},
	{read: true, args: "inbox --seat alice"},
	{read: true, args: "prime --seat alice --json", now: tNext},
	{read: true, args: "agreements --seat bob"},
	{read: true, args: "a2a task p1"},
	{read: true, args: "check"},
	{read: true, as: "alice", args: "inbox"},
	{read: true, as: "alice", args: "prime"},
	{read: true, as: "bob", args: "agreements"},
	{read: true, as: "bob", args: "prime --hook claude"},
}

// TestServeMatchesLocal runs the same command lines against a local file
// ledger and, through `pinki --server`, against a running `pinki serve`
// (over a file ledger, and over PostgreSQL when $PINKI_TEST_POSTGRES is
// set): stdout, stderr (the ledger's name aside) and exit statuses are the
// same, and the two ledgers hold the same bytes.
func TestServeMatchesLocal(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
		local := matchServer(t, "--ledger", path)
		served, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(served, local) {
			t.Errorf("the server's ledger file differs from the local one (%v):\n%s\n---\n%s", err, served, local)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		matchServer(t, "--store", testPostgres(t))
	})
}

// matchServer runs matchSteps locally and against a server on the store
// named by global, compares them, and returns the local ledger's bytes.
func matchServer(t *testing.T, global ...string) []byte {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), []byte(`{"type":"integer","minimum":0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	history := `{"ts":"2020-01-01T00:00:00Z","type":"promise","id":"old-1","promise":"history","by":"carol","to":"dave","until":"2020-01-02T00:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for _, seat := range []string{"alice", "bob"} {
		tokens[seat] = addToken(t, seat, "seat", global...)
	}
	tokens["observer"] = addToken(t, "desk/watch", "observer", global...)
	tokens["admin"] = addToken(t, "desk/root", "admin", global...)
	srv := startServer(t, append(slices.Clone(global), "--now", t0)...)

	localPath := filepath.Join(dir, "local", "ledger.jsonl")
	vars := map[string]string{"dir": dir}
	for i, s := range matchSteps {
		args := s.words(vars)
		now := s.now
		if now == "" {
			now = t0
		}
		localArgs := []string{"--ledger", localPath, "--now", now}
		if s.as != "" && s.as != "admin" && s.as != "observer" {
			localArgs = append(localArgs, "--as", s.as)
		}
		serverArgs := []string{}
		if s.read {
			serverArgs = append(serverArgs, "--now", now)
		}
		who := s.as
		if who == "" {
			who = "observer"
		}
		l := cli(t, nil, append(localArgs, args...)...)
		r := cli(t, map[string]string{"PINKI_SERVER": srv.url, "PINKI_TOKEN": tokens[who]}, append(serverArgs, args...)...)
		name := fmt.Sprintf("step %d (%s: pinki %s)", i+1, who, strings.Join(args, " "))
		if l.code != s.want {
			t.Fatalf("%s locally: want exit %d, got %s", name, s.want, l)
		}
		norm := func(s string) string {
			return strings.NewReplacer(localPath, "LEDGER", srv.url, "LEDGER").Replace(s)
		}
		if r.code != l.code || norm(r.out) != norm(l.out) || norm(r.err) != norm(l.err) {
			t.Errorf("%s: the server's answer\n%s\ndiffers from the local one\n%s", name, r, l)
		}
		if strings.HasPrefix(s.args, "request ") {
			vars["digest"] = strings.Fields(l.out)[2]
		}
	}
	local, err := os.ReadFile(localPath)
	if err != nil {
		t.Fatal(err)
	}
	// The whole ledger, line for line, through the API.
	events := must(t, map[string]string{"PINKI_SERVER": srv.url, "PINKI_TOKEN": tokens["admin"]}, "export", "--format", "events")
	if events != string(local) {
		t.Errorf("the server's events differ from the local ledger:\n%s\n---\n%s", events, local)
	}
	return local
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// wantRefusal fails unless r exited with code, printing nothing on stdout
// and "pinki: error: " with msg on the first line of stderr.
func wantRefusal(t *testing.T, what string, r result, code int, msg string) {
	t.Helper()
	first, _, _ := strings.Cut(r.err, "\n")
	if r.code != code || r.out != "" || !strings.HasPrefix(first, "pinki: error: ") || !strings.Contains(first, msg) {
		t.Errorf("%s: want exit %d with an error containing %q, got %s", what, code, msg, r)
	}
}

// TestServeSurfaces starts `pinki serve` on a file ledger and checks what
// the comparison does not: the refusals of server mode (--now on a write,
// another seat, no token, a revoked token, an unreachable server), a
// verifier working against the server with its state kept locally, MCP at
// /mcp, the agent card and A2A at /a2a, and lines the server does not
// understand making reads exit 3.
func TestServeSurfaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "srv", ".pinki", "ledger.jsonl")
	g := []string{"--ledger", path}
	alice := addToken(t, "alice", "seat", g...)
	bob := addToken(t, "bob", "seat", g...)
	verifier := addToken(t, "desk/verifier", "verifier", g...)
	srv := startServer(t, g...)
	client := filepath.Join(dir, "client", ".pinki", "ledger.jsonl") // where the client keeps its files
	env := func(token string, kv ...string) map[string]string {
		m := map[string]string{"PINKI_SERVER": srv.url, "PINKI_TOKEN": token, "PINKI_LEDGER": client}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}

	t.Run("refusals", func(t *testing.T) {
		wantRefusal(t, "--now on a write", cli(t, env(alice), "--now", t0, "promise", "x", "--to", "bob", "--until", "+1h"),
			2, "--now cannot stamp a write on a server")
		wantRefusal(t, "--now on bridge --propose", cli(t, env(alice), "--now", t0, "bridge", "Let's agree: pair", "--propose",
			"--by", "alice", "--to", "bob", "--until", "+1h"), 2, "--now cannot stamp a write on a server")
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refusal wrote the ledger: %v", err)
		}
		wantRefusal(t, "--as another seat", cli(t, env(alice), "--as", "bob", "ls"), 2, `"bob"`)
		wantRefusal(t, "$PINKI_SEAT another seat", cli(t, env(alice, "PINKI_SEAT", "bob"), "inbox"), 2, `"bob"`)
		wantRefusal(t, "mcp --seat another seat", cli(t, env(alice), "mcp", "--seat", "bob"), 2, "is not the token's seat")
		wantRefusal(t, "no token", cli(t, env(""), "ls"), 2, "no token for the server "+srv.url)
		wantRefusal(t, "a bad token", cli(t, env("pnk_tok_nope"), "ls"), 2, "the bearer token is not a pinki token")
		wantRefusal(t, "init", cli(t, env(alice), "init"), 2, "there is nothing to create")
		wantRefusal(t, "unreachable", cli(t, map[string]string{"PINKI_TOKEN": alice}, "--server", "http://127.0.0.1:1", "ls"),
			1, "server unreachable: http://127.0.0.1:1")
		wantRefusal(t, "--server on token", cli(t, nil, "--server", srv.url, "token", "ls"), 2, "never through a server")
		wantRefusal(t, "--server on serve", cli(t, nil, "--server", srv.url, "serve"), 2, "never through a server")
		wantRefusal(t, "--ledger with --server", cli(t, nil, "--ledger", path, "--server", srv.url, "ls"), 2,
			"--ledger and --server cannot go together")
		wantRefusal(t, "--store not postgres", cli(t, nil, "--store", "mysql://x/y", "ls"), 2, "`mysql://x/y` is not a postgres:// URL")
		wantRefusal(t, "--public-url", cli(t, nil, "--ledger", path, "serve", "--public-url", "ftp://x"), 2, "--public-url")
		// $PINKI_SERVER does not send the token verbs to a server.
		if out := must(t, map[string]string{"PINKI_SERVER": srv.url}, "--ledger", path, "token", "ls"); strings.Count(out, "\n") != 3 {
			t.Errorf("token ls:\n%s", out)
		}
	})

	t.Run("onboard", func(t *testing.T) {
		// Without --seat, the seat of the token (as inbox and prime).
		if out := must(t, env(alice), "onboard"); !strings.Contains(out, `"command": "pinki prime --seat alice --tolerate-unknown"`) {
			t.Errorf("onboard with alice's token:\n%s", out)
		}
		wantRefusal(t, "onboard with a verifier's token", cli(t, env(verifier), "onboard"), 2, "no seat given")
	})

	t.Run("verify", func(t *testing.T) {
		todos := filepath.Join(dir, "todos.json")
		write := func(status string) {
			if err := os.WriteFile(todos, []byte(`[{"content":"Water the plants","status":"`+status+`"}]`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("pending")
		must(t, env(alice), "promise", "water the plants", "--id", "p1", "--to", "bob", "--until", "+1h",
			"--bind-todo", todos, "--item", "Water the plants")
		state := filepath.Join(dir, "client", ".pinki", "verify", "state-"+strings.NewReplacer(":", "_").Replace(strings.TrimPrefix(srv.url, "http://"))+".json")
		if _, err := os.Stat(state); err != nil {
			t.Fatalf("the verifier's state was not started beside the client: %v", err)
		}
		if out := must(t, env(verifier), "verify"); out != "p1 todo:"+todos+"#Water the plants: pending: pending [none]\n" {
			t.Errorf("verify, pending:\n%s", out)
		}
		write("completed")
		r := cli(t, env(verifier), "verify")
		if r.code != 0 || r.out != "p1 todo:"+todos+"#Water the plants: delivered (pending -> completed) [resolved]\n" ||
			r.err != "pinki: recorded 1 event(s) in "+srv.url+"\n" {
			t.Errorf("verify, completed: %s", r)
		}
		if out := must(t, env(bob), "show", "p1"); !strings.Contains(out, " by desk/verifier\n") {
			t.Errorf("show p1:\n%s", out)
		}
		// A seat's token is warned about; --as names the token's seat.
		r = cli(t, env(bob), "verify")
		if r.code != 0 || !strings.Contains(r.err, "not verifier") {
			t.Errorf("verify with a seat's token: %s", r)
		}
		wantRefusal(t, "verify --as another seat", cli(t, env(verifier), "--as", "pinki/verifier", "verify"), 2, `"pinki/verifier"`)
		// $PINKI_SEAT names an agent's own seat, not the verifier's.
		if r := cli(t, env(verifier, "PINKI_SEAT", "alice"), "a2a", "watch"); r.code != 0 {
			t.Errorf("a2a watch: %s", r)
		}
		// The seat map is the client's.
		must(t, env(alice), "seat", "set", "desk/reviewer", "--card", "https://example.org/agent")
		if _, err := os.Stat(filepath.Join(dir, "client", ".pinki", "seats.json")); err != nil {
			t.Errorf("seat set: %v", err)
		}
	})

	t.Run("revoked", func(t *testing.T) {
		must(t, env(bob), "ls", "--all")
		if out := must(t, nil, "--ledger", path, "token", "revoke", bob); !strings.HasPrefix(out, "tok_") || !strings.HasSuffix(out, "\trevoked\n") {
			t.Errorf("token revoke: %q", out)
		}
		wantRefusal(t, "a revoked token", cli(t, env(bob), "ls", "--all"), 2, "the bearer token was revoked at ")
		must(t, env(alice), "ls", "--all")
	})

	t.Run("mcp", func(t *testing.T) {
		ctx := context.Background()
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			c := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "pinki-serve-test", Version: "v0"}, nil)
			cs, err := c.Connect(ctx, &sdkmcp.StreamableClientTransport{Endpoint: srv.url + "/mcp",
				HTTPClient: &http.Client{Transport: bearerTransport{alice}}}, &sdkmcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatalf("initialize (%s): %v", v, err)
			}
			if got := cs.InitializeResult(); got.ProtocolVersion != v || got.ServerInfo.Name != "pinki" {
				t.Errorf("initialize (%s): %+v", v, got)
			}
			checkTools(t, cs)
			res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: "make_promise", Arguments: map[string]any{
				"promise": "review the schema", "to": "bob", "until": "2099-01-01T00:00:00Z", "id": "m-" + v}})
			if err != nil || res.IsError {
				t.Fatalf("make_promise: %v %+v", err, res)
			}
			cs.Close()
			if out := must(t, env(alice), "show", "m-"+v); !strings.Contains(out, "\n  by           alice\n") {
				t.Errorf("show m-%s:\n%s", v, out)
			}
		}
		resp, err := http.Post(srv.url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		var p httpapi.Problem
		json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if resp.StatusCode != 401 || p.Code != "unauthenticated" || resp.Header.Get("Content-Type") != httpapi.ProblemContentType {
			t.Errorf("/mcp without a token: %d %+v", resp.StatusCode, p)
		}
	})

	t.Run("a2a", func(t *testing.T) {
		testServeA2A(t, srv.url, alice, func(id string) string { return must(t, env(alice), "show", id) })
	})

	t.Run("unknown lines", func(t *testing.T) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"ts":"2026-09-01T12:00:00Z","type":"handoff","promise":"p1"}` + "\n")
		f.Close()
		deadline := time.Now().Add(20 * time.Second)
		for {
			r := cli(t, env(alice), "ls", "--all")
			if r.code == 3 {
				if !strings.Contains(r.err, "pinki: warning: the output leaves out 1 line(s) this version does not understand") {
					t.Errorf("ls: %s", r)
				}
				break
			}
			if r.code != 0 || time.Now().After(deadline) {
				t.Fatalf("ls: want exit 3 once the server read the line, got %s", r)
			}
			time.Sleep(10 * time.Millisecond)
		}
		must(t, env(alice), "ls", "--all", "--tolerate-unknown")
		must(t, env(alice), "promise", "a write still exits 0", "--to", "bob", "--until", "+1h")
		if !strings.Contains(srv.stderr.String(), `unknown event type "handoff"`) {
			t.Errorf("the server does not warn about the line:\n%s", srv.stderr)
		}
	})
}

// testServeA2A checks the agent card at the well-known path and declares a
// promise with A2A SendMessage (a2a-go's client, from the card on), as the
// seat of token; show reads the obligation back through the CLI.
func testServeA2A(t *testing.T, base, token string, show func(id string) string) {
	ctx := context.Background()
	resp, err := http.Get(base + a2a.WellKnownCard)
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		SupportedInterfaces []struct {
			URL             string `json:"url"`
			ProtocolBinding string `json:"protocolBinding"`
		} `json:"supportedInterfaces"`
		Capabilities struct {
			Extensions []a2a.Extension `json:"extensions"`
		} `json:"capabilities"`
		Version string `json:"version"`
	}
	err = json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(card.SupportedInterfaces) != 1 || card.SupportedInterfaces[0].URL != base+"/a2a" ||
		len(card.Capabilities.Extensions) != 1 || card.Capabilities.Extensions[0].URI != a2a.ExtensionURI ||
		card.Capabilities.Extensions[0].Required || card.Capabilities.Extensions[0].Params["assessments"] != base+"/v1/export" ||
		card.Version != version {
		t.Fatalf("the agent card: %d %v %+v", resp.StatusCode, err, card)
	}
	parsed, err := (&a2a.Agents{}).FetchCard(ctx, base+a2a.WellKnownCard)
	if err != nil {
		t.Fatal(err)
	}
	client, err := a2aclient.NewFromCard(ctx, parsed)
	if err != nil {
		t.Fatal(err)
	}
	msg := a2asdk.NewMessage(a2asdk.MessageRoleUser, a2asdk.NewTextPart("I promise to review the schema"))
	msg.Extensions = []string{a2a.ExtensionURI}
	msg.SetMeta(a2a.MetadataKey, map[string]any{"id": "a2a-1", "promise": "review the schema", "to": "bob", "until": "2099-01-01T00:00:00Z"})
	if _, err := client.SendMessage(ctx, &a2asdk.SendMessageRequest{Message: msg}); err == nil {
		t.Errorf("SendMessage without a token succeeded")
	}
	authed := a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{"Authorization": {"Bearer " + token}})
	res, err := client.SendMessage(authed, &a2asdk.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if task, ok := res.(*a2asdk.Task); !ok || task.Status.State != a2asdk.TaskStateWorking || task.ID != "a2a-1" {
		t.Fatalf("SendMessage answered %+v", res)
	}
	if out := show("a2a-1"); !strings.Contains(out, "\n  promise      review the schema\n") {
		t.Errorf("show a2a-1:\n%s", out)
	}
}

// TestMovePostgres moves a ledger from a file into PostgreSQL and back with
// import and export --format events on --store: every event is the same
// bytes, and every read answers the same.
func TestMovePostgres(t *testing.T) {
	pg := testPostgres(t)
	dir := t.TempDir()
	for _, f := range []struct{ name, data string }{
		{"schema.json", `{"type":"integer","minimum":0}`},
		{"history.jsonl", `{"ts":"2020-01-01T00:00:00Z","type":"promise","id":"old-1","promise":"history","by":"carol","to":"dave","until":"2020-01-02T00:00:00Z"}` + "\n"},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := filepath.Join(dir, "a.jsonl")
	vars := map[string]string{"dir": dir}
	for _, s := range matchSteps {
		if s.read {
			continue
		}
		args := []string{"--ledger", a, "--now", t0}
		if s.as != "admin" {
			args = append(args, "--as", s.as)
		}
		r := cli(t, nil, append(args, s.words(vars)...)...)
		if r.code != s.want {
			t.Fatalf("pinki %s: want exit %d, got %s", s.args, s.want, r)
		}
		if strings.HasPrefix(s.args, "request ") {
			vars["digest"] = strings.Fields(r.out)[2]
		}
	}
	original, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	events := must(t, nil, "--ledger", a, "export", "--format", "events")
	if events != string(original) {
		t.Fatalf("export --format events is not the ledger:\n%s", events)
	}
	if out := must(t, nil, "--store", pg, "init"); out != redact(pg)+"\n" {
		t.Errorf("init --store: %q", out)
	}
	moved := filepath.Join(dir, "moved.jsonl")
	if err := os.WriteFile(moved, []byte(events), 0o644); err != nil {
		t.Fatal(err)
	}
	n := strings.Count(events, "\n")
	if out := must(t, nil, "--store", pg, "import", moved); out != fmt.Sprintf("imported %d events into %s\n", n, redact(pg)) {
		t.Errorf("import --store: %q", out)
	}
	if r := cli(t, nil, "--store", pg, "import", moved); r.code != 4 {
		t.Errorf("a second import: %s", r)
	}
	back := must(t, nil, "--store", pg, "export", "--format", "events")
	if back != events {
		t.Fatalf("PostgreSQL's events differ from the file's:\n%s\n---\n%s", back, events)
	}
	b := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(moved, []byte(back), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, nil, "--ledger", b, "import", moved)
	if got, _ := os.ReadFile(b); !bytes.Equal(got, original) {
		t.Errorf("the ledger moved back differs:\n%s\n---\n%s", got, original)
	}
	for _, read := range [][]string{
		{"ls", "--all", "--json"}, {"ls", "--all"}, {"show", "p1", "--json"}, {"show", "r1"}, {"show", "ag", "--json"},
		{"export"}, {"inbox", "--seat", "alice"}, {"prime", "--seat", "bob", "--json"}, {"check", "--json"},
	} {
		args := append([]string{"--now", tNext}, read...)
		want := must(t, nil, append([]string{"--ledger", a}, args...)...)
		for _, where := range [][]string{{"--store", pg}, {"--ledger", b}} {
			if got := must(t, nil, append(where, args...)...); got != want {
				t.Errorf("pinki %s %s:\n%s\nwant (the original file)\n%s", where[0], strings.Join(read, " "), got, want)
			}
		}
	}
}

// TestServePostgresReplicas runs two `pinki serve --store` on one database:
// they are one ledger. A write through one is read through the other, an
// event stream on one sees a write through the other, a conflict is a
// conflict across them, and a token revoked in the database is refused by
// both at once.
func TestServePostgresReplicas(t *testing.T) {
	pg := testPostgres(t)
	g := []string{"--store", pg}
	alice := addToken(t, "alice", "seat", g...)
	bob := addToken(t, "bob", "seat", g...)
	watch := addToken(t, "desk/watch", "observer", g...)
	if out := must(t, nil, "--store", pg, "token", "ls"); strings.Count(out, " active\n") != 3 {
		t.Errorf("token ls --store:\n%s", out)
	}
	s1, s2 := startServer(t, g...), startServer(t, g...)
	env := func(s *server, token string) map[string]string {
		return map[string]string{"PINKI_SERVER": s.url, "PINKI_TOKEN": token, "PINKI_LEDGER": filepath.Join(t.TempDir(), "ledger.jsonl")}
	}

	// The event stream on s2, from the start.
	c2, err := httpapi.NewClient(s2.url, watch, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan ledger.EventRecord, 64)
	streamDone := make(chan error, 1)
	go func() {
		streamDone <- c2.Stream(ctx, 0, func(r ledger.EventRecord) error { events <- r; return nil })
	}()
	defer func() {
		cancel()
		<-streamDone
	}()

	must(t, env(s1, alice), "promise", "ship it", "--id", "p1", "--to", "bob", "--until", "+1h")
	select {
	case r := <-events:
		if r.Seq != 1 || !strings.Contains(string(r.Event), `"id":"p1"`) {
			t.Errorf("the stream on the other server sent %d %s", r.Seq, r.Event)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream on the other server saw nothing")
	}
	// Read through the other server: its fold follows the database.
	eventually(t, func() result { return cli(t, env(s2, bob), "show", "p1") }, func(r result) bool {
		return r.code == 0 && strings.Contains(r.out, "\n  by           alice\n")
	})
	must(t, env(s2, bob), "assess", "p1", "--state", "disputed")
	eventually(t, func() result { return cli(t, env(s1, alice), "show", "p1") }, func(r result) bool {
		return r.code == 0 && strings.Contains(r.out, "  disputed  bob")
	})
	// One resolution: a different second one through the other server is
	// a conflict.
	must(t, env(s1, alice), "resolve", "p1", "--satisfied", "--evidence", "https://example.org/1")
	if r := cli(t, env(s2, alice), "resolve", "p1", "--cancelled", "--reason", "changed my mind"); r.code != 4 {
		t.Errorf("a second resolution through the other server: %s", r)
	}
	// A token revoked in the database is refused by both servers at once.
	must(t, nil, "--store", pg, "token", "revoke", bob)
	for _, s := range []*server{s1, s2} {
		wantRefusal(t, "a revoked token", cli(t, env(s, bob), "inbox"), 2, "revoked")
	}
	// Both hold the same ledger.
	one := must(t, env(s1, watch), "export", "--format", "events")
	if two := must(t, env(s2, watch), "export", "--format", "events"); one != two || strings.Count(one, "\n") != 3 {
		t.Errorf("the servers' events differ:\n%s\n---\n%s", one, two)
	}
}

// eventually runs f until ok accepts its result, failing after a generous
// deadline with the last result.
func eventually(t *testing.T, f func() result, ok func(result) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := f()
		if ok(r) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %s", r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeShutdown stops a server with SIGTERM while writers keep writing:
// it exits 0, and every write it acknowledged is on the ledger (the writes
// in flight when the shutdown began were finished, not dropped).
func TestServeShutdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	alice := addToken(t, "alice", "seat", "--ledger", path)
	srv := startServer(t, "--ledger", path)
	env := map[string]string{"PINKI_SERVER": srv.url, "PINKI_TOKEN": alice}
	const writers = 4
	acked := make(chan []string, writers)
	started := make(chan struct{}, 64)
	for w := 0; w < writers; w++ {
		go func() {
			var ids []string
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				r := cli(t, env, "promise", "keep writing", "--id", id, "--to", "bob", "--until", "+1h")
				if r.code != 0 {
					if r.code != 1 {
						t.Errorf("a write during shutdown: %s", r)
					}
					break
				}
				ids = append(ids, id)
				select {
				case started <- struct{}{}:
				default:
				}
			}
			acked <- ids
		}()
	}
	for i := 0; i < 2*writers; i++ {
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatalf("the writers do not get through:\n%s", srv.stderr)
		}
	}
	srv.stop(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for w := 0; w < writers; w++ {
		for _, id := range <-acked {
			n++
			if !bytes.Contains(data, []byte(`"id":"`+id+`"`)) {
				t.Errorf("the acknowledged write %s is not on the ledger", id)
			}
		}
	}
	if n < 2*writers {
		t.Errorf("only %d writes were acknowledged", n)
	}
}

// TestServeA2AJSClient: an independent A2A client, the npm package
// @a2a-js/sdk, reads pinki serve's agent card, sends it a promise under the
// extension's metadata key, reads it back with GetTask, resolves it, and is
// refused a message without a record — against the real binary, with a real
// bearer token.
func TestServeA2AJSClient(t *testing.T) {
	script := a2atest.InstallJSClient(t)
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	g := []string{"--ledger", path}
	seat := "https://example.org/agents/reviewer"
	token := addToken(t, seat, "seat", g...)
	srv := startServer(t, append(slices.Clone(g), "--now", "2026-09-01T12:00:00Z")...) // the script's deadlines are in 2026-09
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, srv.url, seat, token)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Extension map[string]any `json:"extension"`
		Declared  struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"declared"`
		Fetched struct {
			ID string `json:"id"`
		} `json:"fetched"`
		Resolved struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"resolved"`
		Refused *struct {
			Message string `json:"message"`
		} `json:"refused"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client printed %s: %v", out, err)
	}
	if got.Extension["uri"] != a2a.ExtensionURI || got.Declared.ID != "js/ship-1" || got.Declared.Status.State != "TASK_STATE_WORKING" ||
		got.Fetched.ID != "js/ship-1" || got.Resolved.Status.State != "TASK_STATE_COMPLETED" || got.Refused == nil {
		t.Fatalf("the JS client saw %s", out)
	}
	shown := must(t, nil, append(slices.Clone(g), "show", "js/ship-1")...)
	if !strings.Contains(shown, "satisfied") || !strings.Contains(shown, "https://example.org/reviews/1") {
		t.Fatalf("the ledger after the JS client:\n%s", shown)
	}
}
