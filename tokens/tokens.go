// Package tokens keeps the bearer tokens a pinki server authenticates with.
// A token is 32 random bytes shown once, as "pnk_tok_" and their unpadded
// base64url; only its SHA-256 hash is stored, with the seat it is bound to,
// its role, when it was created and when it was revoked.
//
// Store is the small interface a server needs; File keeps tokens in a JSON
// file beside the file ledger (.pinki/tokens.json), and postgres.Tokens in the
// ledger's database. Mint, Presented, Grant and RefID are the rules every
// store shares, so that a token behaves the same in each; the tokenstest
// package is the suite they pass.
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pinki-ledger/pinki"
)

// Prefix starts every token secret, so that a leaked one is easy to spot.
const Prefix = "pnk_tok_"

// Token is what a store keeps about one token: never the secret itself.
type Token struct {
	// ID is the token's public name, "tok_" and the first 12 hex digits of
	// its hash: what `token ls` shows and `token revoke` takes.
	ID string `json:"id"`
	// Hash is "sha256:" and the hex SHA-256 of the secret.
	Hash    string     `json:"hash"`
	Seat    string     `json:"seat"`
	Role    pinki.Role `json:"role"`
	Created string     `json:"created"`
	Revoked string     `json:"revoked,omitempty"`
}

// Identity is who the token authenticates as.
func (t Token) Identity() pinki.Identity { return pinki.Identity{Seat: t.Seat, Role: t.Role} }

// Store keeps tokens. Implementations must make Revoke effective for every
// process sharing the store by the next Lookup ("a revoked token fails at
// once"), and must never store or return a secret after Add.
//
// Errors: every method returns *pinki.Error values: CodeInvalid for a bad seat
// or role, CodeNotFound when Revoke names no token, CodeUnauthenticated from
// Lookup for a missing, unknown, malformed or revoked token, CodeUnavailable
// when the storage cannot be read or written.
type Store interface {
	// Add mints a token for seat with role and returns its secret (shown to
	// the user once) and its record.
	Add(ctx context.Context, seat string, role pinki.Role) (secret string, t Token, err error)
	// List returns every token, revoked ones included, in creation order.
	List(ctx context.Context) ([]Token, error)
	// Revoke revokes the token named by ref: its ID, or the secret itself.
	// Revoking a revoked token succeeds and changes nothing.
	Revoke(ctx context.Context, ref string) (Token, error)
	// Lookup returns the identity a secret authenticates as.
	Lookup(ctx context.Context, secret string) (pinki.Identity, error)
}

// ParseRole parses a role name; "" means RoleSeat.
//
// Errors: CodeInvalid for any other name.
func ParseRole(s string) (pinki.Role, error) {
	switch r := pinki.Role(strings.TrimSpace(s)); r {
	case "":
		return pinki.RoleSeat, nil
	case pinki.RoleSeat, pinki.RoleObserver, pinki.RoleVerifier, pinki.RoleAdmin:
		return r, nil
	}
	return "", pinki.Invalid("role", "role %q must be seat, observer, verifier or admin", s)
}

// CheckSeat validates the seat a token is bound to: non-empty, valid UTF-8,
// no control characters, at most 512 bytes. It returns the trimmed seat.
//
// Errors: CodeInvalid naming the field "seat".
func CheckSeat(seat string) (string, error) {
	seat = strings.TrimSpace(seat)
	switch {
	case seat == "":
		return "", pinki.Invalid("seat", "seat is empty: a token is bound to one seat").
			WithHint("pinki token add --seat SEAT [--role observer|verifier|admin]")
	case !utf8.ValidString(seat):
		return "", pinki.Invalid("seat", "seat is not valid UTF-8")
	case len(seat) > 512:
		return "", pinki.Invalid("seat", "seat is %d bytes, over the 512-byte limit", len(seat))
	}
	for _, r := range seat {
		if unicode.IsControl(r) {
			return "", pinki.Invalid("seat", "seat holds the control character %U", r)
		}
	}
	return seat, nil
}

// NewSecret draws a fresh token secret.
//
// Errors: CodeUnavailable when the system's random source fails.
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", pinki.Errorf(pinki.CodeUnavailable, "cannot draw a random token: %v", err)
	}
	return Prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Hash returns the stored form of a secret: "sha256:" and its hex SHA-256.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// IDOf returns the public id of the token with the given hash.
func IDOf(hash string) string {
	h := strings.TrimPrefix(hash, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return "tok_" + h
}

// Mint validates seat and role, draws a fresh secret and returns it with the
// token's record stamped at now: what a Store's Add does before it stores
// the record. Role "" means RoleSeat.
//
// Errors: CodeInvalid for a bad seat or role (CheckSeat, ParseRole);
// CodeUnavailable when the random source fails.
func Mint(seat string, role pinki.Role, now time.Time) (string, Token, error) {
	seat, err := CheckSeat(seat)
	if err != nil {
		return "", Token{}, err
	}
	if role, err = ParseRole(string(role)); err != nil {
		return "", Token{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return "", Token{}, err
	}
	hash := Hash(secret)
	return secret, Token{ID: IDOf(hash), Hash: hash, Seat: seat, Role: role, Created: stamp(now)}, nil
}

// Presented checks the shape of a secret a request presents and returns its
// hash, the key a Store looks the token up by. Nothing is compared with the
// secret itself.
//
// Errors: CodeUnauthenticated for an empty secret or one that is not a
// pinki token.
func Presented(secret string) (string, error) {
	if secret == "" {
		return "", unauthenticated("no bearer token: every request needs one")
	}
	if !wellFormed(secret) {
		return "", unauthenticated("the bearer token is not a pinki token")
	}
	return Hash(secret), nil
}

// Grant returns the identity the token t grants to a request presenting the
// secret whose hash is hash; found says whether the store holds t at all.
// The hashes are compared in constant time.
//
// Errors: CodeUnauthenticated when no token was found, the hash does not
// match, or the token was revoked.
func Grant(t Token, found bool, hash string) (pinki.Identity, error) {
	if !found || subtle.ConstantTimeCompare([]byte(t.Hash), []byte(hash)) != 1 {
		return pinki.Identity{}, unauthenticated("the bearer token is not valid")
	}
	if t.Revoked != "" {
		return pinki.Identity{}, unauthenticated("the bearer token was revoked at " + t.Revoked)
	}
	return t.Identity(), nil
}

// RefID returns the id of the token a Revoke ref names: the id as given, or
// the id of a secret (a ref starting with Prefix).
//
// Errors: CodeInvalid for an empty ref.
func RefID(ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", pinki.Invalid("token", "name the token to revoke: its id (tok_…) or the token itself")
	}
	if strings.HasPrefix(ref, Prefix) {
		return IDOf(Hash(ref)), nil
	}
	return ref, nil
}

// NotFound is Revoke's error for an id no token has: CodeNotFound with a
// hint naming `pinki token ls`.
func NotFound(id string) *pinki.Error {
	return (&pinki.Error{Code: pinki.CodeNotFound, Field: "token", Message: fmt.Sprintf("no token has the id %q", id)}).
		WithHint("`pinki token ls` lists the tokens")
}

// Stamp formats an instant the way tokens record Created and Revoked: UTC,
// whole seconds, RFC 3339.
func Stamp(now time.Time) string { return stamp(now) }

// wellFormed reports whether s has the shape of a secret NewSecret draws.
func wellFormed(s string) bool {
	if !strings.HasPrefix(s, Prefix) || len(s) != len(Prefix)+43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[len(Prefix):])
	return err == nil
}

func unauthenticated(msg string) *pinki.Error {
	return (&pinki.Error{Code: pinki.CodeUnauthenticated, Field: "token", Message: msg}).
		WithHint("send Authorization: Bearer TOKEN with a token from `pinki token add --seat SEAT`")
}

func stamp(now time.Time) string { return pinki.FormatTime(now.UTC().Truncate(time.Second)) }
