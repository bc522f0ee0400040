package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/internal/atomicfile"
)

// DirectoryFile is the seat → agent map's file name, kept in the ledger's
// folder: .pinki/seats.json beside .pinki/ledger.jsonl.
const DirectoryFile = "seats.json"

// DirectoryFormat is the value of the map file's "format" key.
const DirectoryFormat = "pinki-seats/1"

// WellKnownCard is where an agent publishes its card, under its base URL
// (A2A §8.2).
const WellKnownCard = "/.well-known/agent-card.json"

// DirectoryPath is where the seat → agent map lives for the ledger at
// ledgerPath.
func DirectoryPath(ledgerPath string) string {
	return filepath.Join(filepath.Dir(ledgerPath), DirectoryFile)
}

// Directory says where a seat's agent lives. A seat that is an https:// URL
// is its own agent's base, so its card is at seat + /.well-known/agent-card.json;
// any other mapping is recorded in the map file (`pinki seat set SEAT --card
// URL`), which also overrides the rule for an https:// seat.
//
// The file is JSON:
//
//	{"format": "pinki-seats/1", "seats": {"desk/reviewer": {"card": "https://…/.well-known/agent-card.json"}}}
//
// A Directory is not safe for concurrent use; the file is rewritten
// atomically (a synced temporary file renamed over it), so readers in other
// processes see the old map or the new one, never half of one.
type Directory struct {
	path  string
	seats map[string]SeatAgent
}

// SeatAgent is one entry of the map: the card URL recorded for a seat.
type SeatAgent struct {
	Seat string `json:"-"`
	Card string `json:"card"`
}

type directoryFile struct {
	Format string               `json:"format"`
	Seats  map[string]SeatAgent `json:"seats"`
}

// OpenDirectory reads the map file at path. A missing file is an empty map
// (https:// seats still resolve to themselves).
//
// Errors: CodeUnavailable when the file cannot be read; CodeInvalid when it
// is not a seat map (bad JSON, wrong format, a bad card URL), naming the file.
func OpenDirectory(path string) (*Directory, error) {
	d := &Directory{path: path, seats: map[string]SeatAgent{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, &pinki.Error{Code: pinki.CodeUnavailable, Field: "seats",
			Message: fmt.Sprintf("cannot read the seat map %s: %v", path, err)}
	}
	bad := func(why string) error {
		return pinki.Invalid("seats", "%s is not a pinki seat map: %s", path, why).
			WithHint("fix or delete it; `pinki seat set SEAT --card URL` writes a fresh one")
	}
	var f directoryFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, bad(err.Error())
	}
	if f.Format != DirectoryFormat {
		return nil, bad(fmt.Sprintf("format %q, want %q", f.Format, DirectoryFormat))
	}
	for seat, a := range f.Seats {
		card, err := CardURL(a.Card)
		if err != nil {
			return nil, bad(fmt.Sprintf("seat %q: %v", seat, err))
		}
		d.seats[seat] = SeatAgent{Seat: seat, Card: card}
	}
	return d, nil
}

// Path is the map file's path.
func (d *Directory) Path() string { return d.path }

// Set records that seat's agent publishes its card at card, and saves the
// map. card is a card URL (its path ends in .json) or an agent's base URL
// (the card is then at base + /.well-known/agent-card.json); http:// is
// accepted for agents on a private network.
//
// Errors: CodeInvalid for an empty seat or a card that is not an absolute
// http(s) URL; CodeUnavailable when the file cannot be written.
func (d *Directory) Set(seat, card string) error {
	seat = strings.TrimSpace(seat)
	if seat == "" {
		return pinki.Invalid("seat", "seat is empty: name the seat whose agent this is")
	}
	u, err := CardURL(card)
	if err != nil {
		return pinki.Invalid("card", "%v", err)
	}
	d.seats[seat] = SeatAgent{Seat: seat, Card: u}
	return d.save()
}

// Remove forgets seat's mapping and saves the map. Removing a seat that has
// none is a success.
//
// Errors: CodeUnavailable when the file cannot be written.
func (d *Directory) Remove(seat string) error {
	if _, ok := d.seats[strings.TrimSpace(seat)]; !ok {
		return nil
	}
	delete(d.seats, strings.TrimSpace(seat))
	return d.save()
}

// Lookup returns the card URL of seat's agent: the recorded mapping, else for
// an https:// seat its well-known card. ok is false when neither applies.
func (d *Directory) Lookup(seat string) (card string, ok bool) {
	if a, found := d.seats[seat]; found {
		return a.Card, true
	}
	if strings.HasPrefix(seat, "https://") {
		if u, err := CardURL(seat); err == nil {
			return u, true
		}
	}
	return "", false
}

// List returns the recorded mappings, ordered by seat.
func (d *Directory) List() []SeatAgent {
	out := make([]SeatAgent, 0, len(d.seats))
	for _, a := range d.seats {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seat < out[j].Seat })
	return out
}

// CardURL normalizes where a card lives: an absolute http(s) URL whose path
// ends in .json is the card itself; any other is an agent's base, whose card
// is at base + /.well-known/agent-card.json. The error says what is wrong.
//
// The error never repeats a password the URL carries: it shows the URL
// redacted (url.URL.Redacted, or for a URL that does not parse, its
// user-information replaced).
func CardURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("card %q is not an absolute http(s) URL", redactURL(raw, u, err))
	}
	if u.User != nil {
		return "", fmt.Errorf("card %q carries credentials: seat maps hold no secrets", u.Redacted())
	}
	u.Fragment = ""
	if strings.HasSuffix(u.Path, ".json") {
		return u.String(), nil
	}
	u.Path = strings.TrimRight(u.Path, "/") + WellKnownCard
	u.RawPath = ""
	return u.String(), nil
}

// redactURL is raw for a message: u.Redacted() when it parsed (err nil),
// else raw with whatever sits between "//" and the last "@" of the
// authority replaced, so that no password is repeated.
func redactURL(raw string, u *url.URL, err error) string {
	if err == nil {
		return u.Redacted()
	}
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return raw
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	start := len(raw) - len(rest)
	return raw[:start] + "xxxxx" + raw[start+at:]
}

func (d *Directory) save() error {
	f := directoryFile{Format: DirectoryFormat, Seats: d.seats}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return &pinki.Error{Code: pinki.CodeInternal, Message: "encoding the seat map: " + err.Error()}
	}
	if err := atomicfile.Write(d.path, append(data, '\n'), 0o644); err != nil {
		return &pinki.Error{Code: pinki.CodeUnavailable, Field: "seats",
			Message: fmt.Sprintf("cannot write the seat map %s: %v", d.path, err)}
	}
	return nil
}
