// Package trace runs data-driven tests: files of cases, each a command line,
// optional input lines, a "----" separator and the expected output, ended by a
// blank line. Lines starting with '#' between cases are comments. Run the tests
// with -rewrite to replace every expected output with the actual one, then
// review the diff.
package trace

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite data-driven test files with the actual output")

// Case is one command of a trace file.
type Case struct {
	Pos   string            // file:line of the command
	Cmd   string            // first word of the command line
	Words []string          // further words that are not key=value
	Args  map[string]string // key=value words
	Input string            // lines between the command and "----", newline-terminated
	Want  string
}

// Arg returns the value of key, or def.
func (c *Case) Arg(key, def string) string {
	if v, ok := c.Args[key]; ok {
		return v
	}
	return def
}

// Runner runs one case and returns its output. A new Runner is made per file,
// so state carries from case to case within a file.
type Runner func(c *Case) string

// Run runs every *.txt file under dir as a subtest.
func Run(t *testing.T, dir string, newRunner func(t *testing.T, path string) Runner) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no trace files in %s", dir)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			RunFile(t, path, newRunner(t, path))
		})
	}
}

// RunFile runs the cases of one file in order.
func RunFile(t *testing.T, path string, run Runner) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, chunks, err := parse(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, c := range cases {
		got := run(c)
		if got != "" && !strings.HasSuffix(got, "\n") {
			got += "\n"
		}
		if strings.Contains(strings.TrimSuffix(got, "\n"), "\n\n") {
			t.Errorf("%s: output holds a blank line, which the trace format cannot express:\n%s", c.Pos, got)
		}
		out.WriteString(chunks[i])
		out.WriteString(got)
		if *rewrite {
			continue
		}
		if got != c.Want {
			t.Errorf("%s: %s\n--- want\n%s--- got\n%s", c.Pos, c.Cmd, c.Want, got)
		}
	}
	out.WriteString(chunks[len(cases)])
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// parse splits a file into cases. chunks[i] is the text before case i's
// expected output (comments, command, input and separator); the last chunk is
// the trailing text.
func parse(path, data string) ([]*Case, []string, error) {
	lines := strings.SplitAfter(data, "\n")
	var cases []*Case
	var chunks []string
	var chunk bytes.Buffer
	i := 0
	for i < len(lines) {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			chunk.WriteString(line)
			i++
			continue
		}
		c := &Case{Pos: fmt.Sprintf("%s:%d", path, i+1), Args: map[string]string{}}
		fields := strings.Fields(trimmed)
		c.Cmd = fields[0]
		for _, f := range fields[1:] {
			if k, v, ok := strings.Cut(f, "="); ok {
				c.Args[k] = v
			} else {
				c.Words = append(c.Words, f)
			}
		}
		chunk.WriteString(line)
		i++
		var input strings.Builder
		for ; i < len(lines) && strings.TrimRight(lines[i], "\r\n") != "----"; i++ {
			input.WriteString(lines[i])
			chunk.WriteString(lines[i])
		}
		if i == len(lines) {
			return nil, nil, fmt.Errorf("%s: no ---- after the command", c.Pos)
		}
		chunk.WriteString(lines[i])
		i++
		c.Input = input.String()
		if c.Input != "" && !strings.HasSuffix(c.Input, "\n") {
			c.Input += "\n"
		}
		var want strings.Builder
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			want.WriteString(strings.TrimRight(lines[i], "\r\n") + "\n")
		}
		c.Want = want.String()
		cases = append(cases, c)
		chunks = append(chunks, chunk.String())
		chunk.Reset()
	}
	chunks = append(chunks, chunk.String())
	return cases, chunks, nil
}
