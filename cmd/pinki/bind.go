package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/verify"
)

func (a *app) bindCommand() *cobra.Command {
	var todo, target, by string
	var ch changeFlags
	cmd := &cobra.Command{
		Use:   "bind ID (--todo FILE ITEM | --target JSON)",
		Short: "Bind an obligation to a target a verifier checks (a todo item, …)",
		Long: `Bind an open obligation to a verification target: only a verifier's check
of that target (pinki verify) then writes satisfied, with the proof as
evidence.

--todo FILE ITEM binds the unfinished item of the todo list FILE (a JSON
array of {"content","status"} objects) whose text is exactly ITEM; it is
delivered when a verifier sees it move from pending or in_progress to
completed. --target JSON (or @FILE) binds any other target object, with a
"kind". A party writes the binding (--as, or --by; default the creditor); on
an agreement it changes the terms, so earlier acceptances stop counting.

Prints ID<TAB>STATE.`,
		Args: argsBetween(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var t json.RawMessage
			var err error
			switch {
			case cmd.Flags().Changed("todo") && cmd.Flags().Changed("target"):
				return usageError("--todo and --target cannot go together: bind one target at a time")
			case cmd.Flags().Changed("todo"):
				if len(args) != 2 {
					return (&pinki.Error{Code: pinki.CodeInvalid, Field: "content",
						Message: "--todo FILE needs the item's exact text after the id: pinki bind ID --todo FILE ITEM"})
				}
				t, err = a.todoTarget(todo, args[1])
			case cmd.Flags().Changed("target"):
				if len(args) != 1 {
					return usageError("pinki bind ID --target JSON takes no item")
				}
				t, err = a.jsonFlag("--target", target)
				if err == nil {
					err = a.startVerifierState()
				}
			default:
				return (&pinki.Error{Code: pinki.CodeInvalid, Field: "target",
					Message: "say what to bind to: --todo FILE ITEM, or --target JSON"})
			}
			if err != nil {
				return err
			}
			meta, rev, err := a.changeValues(cmd, &ch)
			if err != nil {
				return err
			}
			return a.change(func(api ledger.API, who pinki.Identity) (ledger.Receipt, error) {
				return api.Bind(a.ctx, who, ledger.BindInput{ID: args[0], Target: t, By: by, Meta: meta, Rev: rev})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&todo, "todo", "", "the todo list file (a JSON array of {content, status}) holding the item")
	f.StringVar(&target, "target", "", "a target object with a \"kind\", or @FILE")
	f.StringVar(&by, "by", "", "the party writing the binding (default: --as, else the creditor)")
	ch.register(cmd)
	return cmd
}

// todoBinding is the --bind-todo FILE --item TEXT pair of promise and
// propose: bind the new obligation in the same append.
type todoBinding struct {
	file string
	item string
}

func (b *todoBinding) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&b.file, "bind-todo", "", "bind the new obligation to an item of this todo list file (with --item)")
	cmd.Flags().StringVar(&b.item, "item", "", "the exact text of the todo item to bind to (with --bind-todo)")
}

// target returns the binding target, or nil when neither flag was given.
//
// Errors: CodeInvalid when one flag comes without the other, or the item
// cannot be bound (verify.BindTodo); the verifier state file's errors.
func (b *todoBinding) target(a *app) (json.RawMessage, error) {
	switch {
	case b.file == "" && b.item == "":
		return nil, nil
	case b.file == "":
		return nil, &pinki.Error{Code: pinki.CodeInvalid, Field: "bind-todo", Message: "--item goes with --bind-todo FILE: name the todo list"}
	case b.item == "":
		return nil, &pinki.Error{Code: pinki.CodeInvalid, Field: "item", Message: "--bind-todo goes with --item TEXT: name the todo item by its exact text"}
	}
	return a.todoTarget(b.file, b.item)
}

// todoTarget builds the binding target for a todo item, then makes sure the
// verifier's state file exists, so that the binding's snapshot counts as
// the verifier's first look at the item.
//
// Errors: those of verify.BindTodo and verify.Init.
func (a *app) todoTarget(file, item string) (json.RawMessage, error) {
	t, err := verify.BindTodo(file, item)
	if err != nil {
		return nil, err
	}
	return t, a.startVerifierState()
}

// startVerifierState starts the verifier's state file now unless it exists
// (verify.Init), before a binding is written.
func (a *app) startVerifierState() error {
	return verify.Init(a.statePath("state"), a.now)
}
