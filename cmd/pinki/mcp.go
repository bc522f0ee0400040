package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/mcp"
)

func (a *app) mcpCommand() *cobra.Command {
	var seat string
	cmd := &cobra.Command{
		Use:   "mcp --seat SEAT",
		Short: "Serve the ledger's verbs as MCP tools over stdio, bound to one seat",
		Long: `Run a Model Context Protocol server on stdin and stdout, acting as one seat
(--seat, else --as or $PINKI_SEAT; refused without one). Its tools are the
ledger's verbs; no tool takes an identity argument, and one that names
another seat as the writer is refused. It also offers the seat's briefing
as the prompt "briefing" and the resource pinki://briefing.

Against a server (--server) it acts as the token's seat; --seat, when
given, must be that seat.

Stdout carries the protocol only: warnings go to stderr. It runs until
stdin closes (once the requests read before are answered, waiting at most
5 s for them) or it is interrupted.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			seat = strings.TrimSpace(seat)
			switch {
			case seat == "":
				seat = a.seat
			case a.seat != "" && a.seat != seat:
				return usageError("--seat %q and --as %q name different seats: an MCP server acts as one", seat, a.seat)
			}
			api, err := a.api()
			if err != nil {
				return err
			}
			who := pinki.Identity{Seat: seat}
			if a.at == onServer {
				// The server writes as the token's seat: the MCP server acts as it.
				if who, err = a.whoAmI(); err != nil {
					return err
				}
				if seat != "" && seat != who.Seat {
					return (&pinki.Error{Code: pinki.CodeForbidden, Field: "seat",
						Message: fmt.Sprintf("--seat %q is not the token's seat %q: against a server the MCP server acts as the token's seat", seat, who.Seat)}).
						WithHint("leave --seat out, or use a token bound to that seat")
				}
			}
			srv, err := mcp.NewServer(api, who, &mcp.Options{Version: version})
			if err != nil {
				return err
			}
			ctx, stop := a.interruptible()
			defer stop()
			// The end of stdin waits (up to 5 s) for the answers to the
			// requests read before it, so that a host piping requests and
			// closing stdin at once gets every answer.
			transport := &mcp.StdioTransport{Reader: a.stdin, Writer: a.stdout}
			if err := srv.Run(ctx, transport); err != nil && ctx.Err() == nil {
				return pinki.Errorf(pinki.CodeUnavailable, "the MCP session ended: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&seat, "seat", "", "the seat the server acts as (default: --as, $PINKI_SEAT)")
	return cmd
}
