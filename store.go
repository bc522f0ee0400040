package pinki

import (
	"context"
	"io"
)

// Position is a point in a ledger: Seq events (lines) lie before it. Mark is an
// adapter's private resume hint for that point (the file ledger's byte offset);
// zero means the adapter must find the point from Seq alone.
type Position struct {
	Seq  int64 `json:"seq"`
	Mark int64 `json:"mark,omitempty"`
}

// Entry is one line of a ledger as a store returns it: its sequence number
// (1-based, in ledger order) and either the decoded event or, for a line this
// version cannot understand, Err with the line kept in Raw.
type Entry struct {
	Seq    int64
	Offset int64 // where the line starts, for stores that can fetch by offset (file); else 0
	Event  Event
	Raw    []byte // the line as stored, without its newline; set when Err != nil
	Err    error
}

// Fence is the condition under which an append may proceed: the obligation
// Subject must not have changed since the writer observed it, at position Seen,
// holding Version events (0: the id did not exist). A store refuses the whole
// append with a CodeConflict *Error when any fence fails.
//
// Seen and Version say the same thing two ways, and a writer gives both
// consistently (the service takes them from one fold): the file ledger checks
// that no line after Seen names Subject; PostgreSQL checks Version with a
// unique (subject, version) constraint. A fence whose two halves disagree may
// pass on one store and fail on the other.
type Fence struct {
	Subject string
	Version int
	Seen    Position
}

// Store is a durable, append-only ledger of events. Every adapter (jsonl,
// postgres) implements it and passes the one suite in package storetest.
//
// Errors: every method returns *Error values; CodeConflict from Append when a
// fence fails; CodeUnavailable for I/O and connection failures; the context's
// error when ctx ends first.
type Store interface {
	// Append durably appends events, in order and atomically (all or none),
	// provided every fence holds. It returns the position after the last one.
	// When Append returns nil the events will survive a crash.
	Append(ctx context.Context, events []Event, fences []Fence) (Position, error)

	// Read calls fn for each entry after position from, in ledger order, up to
	// the end of the ledger as it was when Read began, and returns the position
	// after the last entry read. An error from fn, or ctx ending, stops the
	// read and is returned, with the position after the last entry fn
	// accepted when the store knows it (else from): a reader that applied
	// entries resumes after the last one it applied, by its sequence number.
	// The strings of an entry stay valid after fn returns (a reader keeps
	// them), and Read holds none of the store's locks while fn runs (fn may
	// take its caller's, and its caller may call the store under them).
	Read(ctx context.Context, from Position, fn func(Entry) error) (Position, error)

	// Wait blocks until the ledger holds an entry after position after, or ctx
	// ends. It is how surfaces follow new events.
	Wait(ctx context.Context, after Position) error

	// Close releases the store's resources.
	Close() error
}

// Snapshots is implemented by stores that can keep a derived cache of the
// folded ledger (the file ledger does, under .pinki/). A snapshot is opaque
// bytes valid for one position; Load returns ok=false when there is none or
// it no longer matches the ledger. Save calls write to stream the bytes.
// Deleting snapshots is always safe.
type Snapshots interface {
	LoadSnapshot(name string) (data []byte, at Position, ok bool)
	SaveSnapshot(name string, at Position, write func(io.Writer) error) error
}

// Role is what an authenticated identity may do beyond its own seat's acts.
type Role string

// The roles. RoleSeat acts for its own seat only; RoleObserver may also read
// every obligation; RoleVerifier may also write verified deliveries; RoleAdmin
// may read everything and manage tokens.
const (
	RoleSeat     Role = "seat"
	RoleObserver Role = "observer"
	RoleVerifier Role = "verifier"
	RoleAdmin    Role = "admin"
)

// Identity is who is writing or reading, when a surface knows it: the seat a
// bearer token or an MCP server is bound to, or the CLI's --as. The zero
// Identity means "unknown" (a local file without --as): no authority checks.
type Identity struct {
	Seat string
	Role Role
}

// Known reports whether the identity names a seat.
func (id Identity) Known() bool { return id.Seat != "" }

// ErrReplaced is returned (possibly wrapped) by a store's Read when the ledger
// it was reading from a position was replaced or rewritten since: the
// position no longer means anything, and a reader must start over.
var ErrReplaced = &Error{Code: CodeConflict, Field: "ledger",
	Message: "the ledger was replaced or rewritten since it was last read"}

// LineRef points at one line of a ledger: its sequence number and, for stores
// that have one, the offset its line starts at (Entry.Offset).
type LineRef struct {
	Seq    int64
	Offset int64
}

// Fetcher is implemented by stores that can read given lines directly. Fetch
// returns the entries in the order of lines. Stores without it are read
// sequentially from the earliest line asked for.
type Fetcher interface {
	Fetch(ctx context.Context, lines []LineRef) ([]Entry, error)
}
