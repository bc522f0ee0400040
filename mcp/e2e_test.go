package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The npm packages the end-to-end test installs into a temporary folder: the
// TypeScript SDK (v1), and its v2 client package, the one that speaks
// protocol revision 2026-07-28.
var npmPackages = []string{"@modelcontextprotocol/sdk@1", "@modelcontextprotocol/client@2"}

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// testServer builds mcp/e2e/testserver and the pinki CLI once per test run
// and returns the test server's path (pinki is beside it).
func testServer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		builtDir, buildErr = os.MkdirTemp("", "pinki-mcp-e2e-")
		if buildErr != nil {
			return
		}
		for _, b := range [][2]string{{"testserver", "./e2e/testserver"}, {"pinki", "../cmd/pinki"}} {
			out, err := exec.Command(goTool, "build", "-o", filepath.Join(builtDir, b[0]), b[1]).CombinedOutput()
			if err != nil {
				buildErr = &buildError{err, string(out)}
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("building the test server: %v", buildErr)
	}
	return filepath.Join(builtDir, "testserver")
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// TestStdioProcess runs the server as a child process on real stdin and
// stdout, driven by the SDK's client.
func TestStdioProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary: skipped under -short")
	}
	bin := testServer(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cmd := exec.Command(bin, "-ledger", filepath.Join(t.TempDir(), "ledger.jsonl"), "-seat", "desk/a")
			cs := clientOver(t, &sdk.CommandTransport{Command: cmd}, v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			exercise(t, cs)
		})
	}
}

// TestE2ENode drives the server with an independent client, the TypeScript
// SDK from npm (mcp/e2e/client.mjs), over stdio and streamable HTTP, on
// protocol revisions 2025-06-18, 2025-11-25 and 2026-07-28. It needs node,
// npm and the npm registry; it is skipped under -short, when node or npm is
// missing, or when PINKI_SKIP_NPM is set. CI runs it with
// `go test -run E2E ./mcp/`.
func TestE2ENode(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test against the npm MCP SDK: skipped under -short")
	}
	if os.Getenv("PINKI_SKIP_NPM") != "" {
		t.Skip("end-to-end test against the npm MCP SDK: skipped because PINKI_SKIP_NPM is set")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("end-to-end test against the npm MCP SDK: skipped because node is not on PATH")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("end-to-end test against the npm MCP SDK: skipped because npm is not on PATH")
	}
	bin := testServer(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	start := time.Now()
	install := exec.CommandContext(ctx, npm, append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund",
		"--loglevel=error", "--no-package-lock"}, npmPackages...)...)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s\n(set PINKI_SKIP_NPM=1 to skip this test offline)", strings.Join(npmPackages, " "), err, out)
	}
	t.Logf("npm install %s: %s", strings.Join(npmPackages, " "), time.Since(start).Round(time.Millisecond))
	script, err := os.ReadFile(filepath.Join("e2e", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}

	stateful := serveHTTP(t, bin, false)
	stateless := serveHTTP(t, bin, true)
	// The CLI itself: `pinki mcp` over stdio, and /mcp of `pinki serve`
	// (stateless streamable HTTP) with a real bearer token.
	pinkiBin := filepath.Join(filepath.Dir(bin), "pinki")
	pinkiStdio := map[string]any{"transport": "stdio", "command": pinkiBin,
		"args": []string{"--ledger", filepath.Join(t.TempDir(), "ledger.jsonl"), "mcp", "--seat", "desk/a"}}
	served, token := servePinki(t, pinkiBin)
	pinkiHTTP := map[string]any{"transport": "http", "url": served + "/mcp", "token": token}
	stdio := func(extra ...string) map[string]any {
		return map[string]any{"transport": "stdio", "command": bin,
			"args": append([]string{"-ledger", filepath.Join(t.TempDir(), "ledger.jsonl"), "-seat", "desk/a"}, extra...)}
	}
	http := func(url string) map[string]any {
		return map[string]any{"transport": "http", "url": url, "token": "tok-a"}
	}
	for _, c := range []struct {
		name, pkg, offer, want string
		to                     map[string]any
	}{
		// @modelcontextprotocol/sdk (v1) offers 2025-11-25; a server that
		// speaks only 2025-06-18 negotiates it down.
		{"sdk/stdio/2025-11-25", "sdk", "", "2025-11-25", stdio()},
		{"sdk/stdio/2025-06-18", "sdk", "", "2025-06-18", stdio("-versions", "2025-06-18")},
		{"sdk/http-stateful/2025-11-25", "sdk", "", "2025-11-25", http(stateful)},
		{"sdk/http-stateless/2025-11-25", "sdk", "", "2025-11-25", http(stateless)},
		// @modelcontextprotocol/client (v2) offers what it is told.
		{"client/stdio/2025-06-18", "client", "2025-06-18", "2025-06-18", stdio()},
		{"client/http-stateful/2025-06-18", "client", "2025-06-18", "2025-06-18", http(stateful)},
		{"client/stdio/2026-07-28", "client", "2026-07-28", "2026-07-28", stdio()},
		{"client/http-stateless/2026-07-28", "client", "2026-07-28", "2026-07-28", http(stateless)},
		// Negotiating (not pinning) the newest revision against a stateful
		// HTTP server falls back to the newest handshake revision.
		{"client/http-stateful/auto", "client", "auto", "2025-11-25", http(stateful)},
		{"pinki-mcp/sdk/stdio/2025-11-25", "sdk", "", "2025-11-25", pinkiStdio},
		{"pinki-mcp/client/stdio/2026-07-28", "client", "2026-07-28", "2026-07-28", pinkiStdio},
		{"pinki-serve/sdk/http/2025-11-25", "sdk", "", "2025-11-25", pinkiHTTP},
		{"pinki-serve/client/http/2026-07-28", "client", "2026-07-28", "2026-07-28", pinkiHTTP},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := map[string]any{"pkg": c.pkg, "version": c.offer}
			for k, v := range c.to {
				cfg[k] = v
			}
			arg, _ := json.Marshal(cfg)
			run, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			cmd := exec.CommandContext(run, node, filepath.Join(dir, "client.mjs"), string(arg))
			cmd.Dir = dir
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
			}
			var seen struct {
				Version string `json:"version"`
				Tools   int    `json:"tools"`
				Refusal string `json:"refusal"`
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
				t.Fatalf("client output %q: %v", out, err)
			}
			if seen.Version != c.want || seen.Tools != 13 || !strings.HasPrefix(seen.Refusal, "invalid: ") {
				t.Fatalf("client saw %+v, want protocol %s, 13 tools and an invalid refusal", seen, c.want)
			}
		})
	}
}

// serveHTTP starts the test server on a free port and returns its /mcp URL.
func serveHTTP(t *testing.T, bin string, stateless bool) string {
	t.Helper()
	args := []string{"-ledger", filepath.Join(t.TempDir(), "ledger.jsonl"), "-http", "127.0.0.1:0", "-token", "tok-a=desk/a"}
	if stateless {
		args = append(args, "-stateless")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("test server said %q: %v", line, err)
	}
	return url
}

// servePinki starts `pinki serve` on a fresh file ledger with a token for
// desk/a, and returns its base URL and the token.
func servePinki(t *testing.T, bin string) (string, string) {
	t.Helper()
	ledger := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	tok, err := exec.Command(bin, "--ledger", ledger, "token", "add", "--seat", "desk/a").Output()
	if err != nil {
		t.Fatalf("pinki token add: %v", err)
	}
	addr := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(bin, "--ledger", ledger, "serve", "--listen", "127.0.0.1:0", "--addr-file", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(addr); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b)), strings.TrimSpace(string(tok))
		}
	}
	t.Fatal("pinki serve did not write its address")
	return "", ""
}
