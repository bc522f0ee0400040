package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/a2a"
)

func (a *app) a2aCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "a2a",
		Short: "A2A v1.0 binding: the AgentCard extension entry, an obligation as a Task, the task watcher",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError("say which: pinki a2a card, pinki a2a task ID, or pinki a2a watch")
		},
	}
	card := &cobra.Command{
		Use:   "card",
		Short: "Print the AgentCard fragment declaring the promise extension",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.printJSON(a2a.Card())
		},
	}
	task := readVerb(&cobra.Command{
		Use:   "task ID",
		Short: "Print an obligation as an A2A v1.0 Task, the record in its metadata",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.get(args[0])
			if err != nil {
				return err
			}
			return a.printJSON(a2a.Task(d))
		},
	})
	cmd.AddCommand(card, task, a.a2aWatchCommand())
	return cmd
}
