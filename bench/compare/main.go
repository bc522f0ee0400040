// Command compare writes one set of obligations two ways, for bench/run.sh to
// time pinki against taskwarrior on the same data: pinki event lines (for
// `pinki import`) and a taskwarrior import file (for `task import`). Each
// obligation is a pending task in the project of its debtor seat, due at its
// deadline; a quarter are already resolved (completed tasks).
//
//	go run ./bench/compare -n 10000 -seats 50 -pinki events.jsonl -task tasks.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/pinki-ledger/pinki"
)

type task struct {
	UUID        string `json:"uuid"`
	Description string `json:"description"`
	Project     string `json:"project"`
	Status      string `json:"status"`
	Entry       string `json:"entry"`
	Due         string `json:"due"`
	End         string `json:"end,omitempty"`
}

func main() {
	n := flag.Int("n", 10000, "obligations")
	seats := flag.Int("seats", 50, "seats (taskwarrior projects)")
	pinkiOut := flag.String("pinki", "events.jsonl", "pinki event lines to write")
	taskOut := flag.String("task", "tasks.json", "taskwarrior import file to write")
	flag.Parse()
	if err := write(*n, *seats, *pinkiOut, *taskOut); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func write(n, seats int, pinkiOut, taskOut string) error {
	rng := rand.New(rand.NewPCG(7, 7))
	pf, err := os.Create(pinkiOut)
	if err != nil {
		return err
	}
	defer pf.Close()
	pw := bufio.NewWriter(pf)
	var tasks []task
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tw := func(t time.Time) string { return t.UTC().Format("20060102T150405Z") }
	var line []byte
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * time.Minute)
		due := at.Add(time.Duration(24+rng.IntN(24*30)) * time.Hour)
		by := fmt.Sprintf("seat-%02d", rng.IntN(seats))
		to := fmt.Sprintf("seat-%02d", rng.IntN(seats))
		text := fmt.Sprintf("deliver work item %d", i)
		id := fmt.Sprintf("pnk_%06x", i+1)
		e := pinki.Event{TS: pinki.FormatTime(at), Type: pinki.TypePromise, ID: id, Text: text, By: by, To: to, Until: pinki.FormatTime(due)}
		line = pinki.AppendLine(line[:0], &e)
		pw.Write(line)
		t := task{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012x", i+1), Description: text, Project: by,
			Status: "pending", Entry: tw(at), Due: tw(due)}
		if i%4 == 0 {
			end := at.Add(time.Hour)
			r := pinki.Event{TS: pinki.FormatTime(end), Type: pinki.TypeResolve, Subject: id, As: pinki.Satisfied, By: by,
				Evidence: []string{"https://git.example.org/c/" + id}}
			line = pinki.AppendLine(line[:0], &r)
			pw.Write(line)
			t.Status, t.End = "completed", tw(end)
		}
		tasks = append(tasks, t)
	}
	if err := pw.Flush(); err != nil {
		return err
	}
	data, err := json.Marshal(tasks)
	if err != nil {
		return err
	}
	return os.WriteFile(taskOut, data, 0o644)
}
