package fold

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/pinki-ledger/pinki"
)

// A snapshot is a Ledger encoded to bytes, so that a reader of a large ledger
// loads it and folds only the lines appended since. It is derived data:
// losing it changes no answer.
//
// Format: "pinki-fold\x00", a format version byte, then varints and
// length-prefixed strings (see snapWriter). Decoding makes every string a
// slice of the snapshot's bytes (one allocation for all of them).

const snapMagic = "pinki-fold\x00"

// snapVersion changes whenever the encoding or the fold's meaning changes, so
// that an old snapshot is never read by a new fold.
const snapVersion = 5

// ErrSnapshot is returned for bytes that are not a snapshot this version can
// read.
var ErrSnapshot = errors.New("fold: not a snapshot of this version")

var typeCodes = []pinki.Type{"", pinki.TypePromise, pinki.TypeRequest, pinki.TypePropose, pinki.TypeAmend,
	pinki.TypeAccept, pinki.TypeProgress, pinki.TypeResolve, pinki.TypeAssess, pinki.TypeBind}

func typeCode(t pinki.Type) byte {
	for i, x := range typeCodes {
		if x == t {
			return byte(i)
		}
	}
	return 0
}

// Snapshot encodes the ledger into bytes.
func (l *Ledger) Snapshot() []byte {
	var buf bytes.Buffer
	l.WriteSnapshot(&buf) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// WriteSnapshot encodes the ledger to out, a piece at a time, so that
// encoding a large fold does not hold a second copy of it in memory.
//
// Errors: whatever out returns.
func (l *Ledger) WriteSnapshot(out io.Writer) error {
	w := snapWriter{b: make([]byte, 0, 64<<10), out: out}
	w.b = append(w.b, snapMagic...)
	w.b = append(w.b, snapVersion)
	w.flag(l.seat != "")
	w.str(l.seat)
	w.int(l.pos.Seq)
	w.int(l.pos.Mark)
	w.uint(uint64(len(l.order)))
	for _, o := range l.order {
		w.obligation(o)
		w.spill()
	}
	w.uint(uint64(len(l.named)))
	for id, n := range l.named {
		w.str(id)
		w.uint(uint64(n))
		w.spill()
	}
	w.uint(uint64(len(l.ignored)))
	for _, ig := range l.ignored {
		w.int(ig.Seq)
		line := pinki.AppendLine(nil, &ig.Event)
		w.str(string(line[:len(line)-1]))
		w.str(ig.Why)
		w.spill()
	}
	w.uint(uint64(len(l.unknown)))
	for _, u := range l.unknown {
		w.int(u.Seq)
		w.str(u.Err)
	}
	w.uint(uint64(len(l.wanted)))
	for id := range l.wanted {
		w.str(id)
	}
	w.flag(l.incomplete)
	if l.seat != "" {
		w.uint(uint64(len(l.declared.bits)))
		for _, word := range l.declared.bits {
			w.b = binary.LittleEndian.AppendUint64(w.b, word)
			w.spill()
		}
	}
	return w.flush()
}

type snapWriter struct {
	b   []byte
	out io.Writer
	err error
}

// spill writes what is buffered once there is enough of it.
func (w *snapWriter) spill() {
	if len(w.b) >= 48<<10 {
		w.flush()
	}
}

func (w *snapWriter) flush() error {
	if w.err == nil && len(w.b) > 0 {
		_, w.err = w.out.Write(w.b)
	}
	w.b = w.b[:0]
	return w.err
}

func (w *snapWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *snapWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *snapWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}
func (w *snapWriter) flag(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *snapWriter) obligation(o *Obligation) {
	r := &o.Record
	w.b = append(w.b, byte(o.Kind))
	w.int(r.Seq)
	w.int(r.Offset)
	w.str(r.TS)
	w.int(r.At)
	w.str(r.ID)
	w.str(r.Text)
	w.str(r.By)
	w.str(r.To)
	w.str(r.On)
	w.str(r.Until)
	w.int(r.UntilAt)
	w.flag(r.extra != nil)
	if x := r.extra; x != nil {
		w.str(x.task)
		w.str(string(x.lapse))
		w.str(x.proposer)
		w.str(x.schemaID)
		w.str(x.schema)
		w.str(x.meta)
	}
	w.uint(uint64(len(o.Events)))
	prevSeq, prevOff := r.Seq, r.Offset
	for _, e := range o.Events {
		w.int(e.Seq - prevSeq)
		w.int(e.Offset - prevOff)
		w.b = append(w.b, typeCode(e.Type))
		prevSeq, prevOff = e.Seq, e.Offset
	}
	w.flag(o.Resolution != nil)
	if res := o.Resolution; res != nil {
		w.int(res.Seq)
		w.str(res.TS)
		w.int(res.At)
		w.str(string(res.As))
		w.str(res.By)
		w.int(res.HorizonAt)
	}
	w.uint(uint64(len(o.Assessments)))
	for _, a := range o.Assessments {
		w.int(a.Seq)
		w.int(a.At)
		w.str(a.Observer)
		w.str(a.State)
	}
	w.int(int64(o.Rev))
	w.int(int64(o.Version))
	w.str(o.amendUntil)
	w.int(o.amendUntilAt)
	w.str(string(o.lastPhase))
	w.flag(o.terms != nil)
	if t := o.terms; t != nil {
		w.uint(uint64(len(t.accepts)))
		for _, a := range t.accepts {
			w.int(a.Seq)
			w.str(a.TS)
			w.int(a.At)
			w.str(a.By)
			w.int(int64(a.Rev))
			w.str(a.Meta)
		}
		w.uint(uint64(len(t.binds)))
		for _, b := range t.binds {
			w.int(b.Seq)
			w.str(b.TS)
			w.int(b.At)
			w.str(b.By)
			w.str(b.Target)
			w.str(b.Meta)
		}
		w.uint(uint64(t.since))
	}
}

// LoadSnapshot decodes a snapshot. The returned Ledger's strings share the
// memory of data, which must not change afterwards.
//
// Errors: ErrSnapshot (wrapped) for bytes this version cannot read.
func LoadSnapshot(data []byte) (l *Ledger, err error) {
	if len(data) < len(snapMagic)+1 || string(data[:len(snapMagic)]) != snapMagic || data[len(snapMagic)] != snapVersion {
		return nil, ErrSnapshot
	}
	r := snapReader{b: data, i: len(snapMagic) + 1, intern: map[string]string{}}
	defer func() {
		if p := recover(); p != nil {
			l, err = nil, fmt.Errorf("%w: %v", ErrSnapshot, p)
		}
	}()
	l = New()
	partial := r.flag()
	l.seat = r.str()
	if partial != (l.seat != "") {
		return nil, ErrSnapshot
	}
	l.pos.Seq = r.int()
	l.pos.Mark = r.int()
	n := r.count()
	l.order = make([]*Obligation, 0, n)
	l.obs = make(map[string]*Obligation, n)
	slab := make([]Obligation, n)
	for i := 0; i < n; i++ {
		o := &slab[i]
		r.obligation(o)
		l.order = append(l.order, o)
		l.obs[o.Record.ID] = o
		l.index(o.Record.By, o)
		if o.Record.To != o.Record.By {
			l.index(o.Record.To, o)
		}
	}
	for n := r.count(); n > 0; n-- {
		id := r.str()
		l.named[id] = int(r.uint())
	}
	var dec pinki.Decoder
	for n := r.count(); n > 0; n-- {
		seq := r.int()
		e, err := dec.Decode([]byte(r.str()))
		if err != nil {
			return nil, fmt.Errorf("%w: ignored event: %v", ErrSnapshot, err)
		}
		why := r.str()
		l.ignoredBy[e.Key()] = append(l.ignoredBy[e.Key()], len(l.ignored))
		l.ignored = append(l.ignored, Ignored{Seq: seq, Event: e, Why: why})
	}
	for n := r.count(); n > 0; n-- {
		l.unknown = append(l.unknown, UnknownLine{Seq: r.int(), Err: r.str()})
	}
	if l.seat != "" {
		l.wanted = map[string]bool{}
	}
	for n := r.count(); n > 0; n-- {
		l.wanted[r.str()] = true
	}
	l.incomplete = r.flag()
	if l.seat != "" {
		words := r.count()
		if words == 0 || len(r.b)-r.i < 8*words {
			return nil, fmt.Errorf("%w: declared ids", ErrSnapshot)
		}
		l.declared = &declaredIDs{bits: make([]uint64, words)}
		for i := range l.declared.bits {
			l.declared.bits[i] = binary.LittleEndian.Uint64(r.b[r.i:])
			r.i += 8
		}
	}
	if r.i != len(r.b) {
		return nil, fmt.Errorf("%w: trailing bytes", ErrSnapshot)
	}
	return l, nil
}

type snapReader struct {
	b      []byte
	i      int
	intern map[string]string
}

func (r *snapReader) uint() uint64 {
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		panic("bad varint")
	}
	r.i += n
	return v
}

func (r *snapReader) int() int64 {
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		panic("bad varint")
	}
	r.i += n
	return v
}

// count reads a length that must fit in what is left.
func (r *snapReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		panic("bad count")
	}
	return int(n)
}

func (r *snapReader) str() string {
	n := r.count()
	if r.i+n > len(r.b) {
		panic("string past the end")
	}
	if n == 0 {
		return ""
	}
	s := unsafe.String(&r.b[r.i], n)
	r.i += n
	return s
}

// word reads a string that repeats across a ledger (a seat, a state), keeping
// one copy of each.
func (r *snapReader) word() string {
	s := r.str()
	if v, ok := r.intern[s]; ok {
		return v
	}
	r.intern[s] = s
	return s
}

func (r *snapReader) flag() bool {
	v := r.b[r.i]
	r.i++
	if v > 1 {
		panic("bad flag")
	}
	return v == 1
}

func (r *snapReader) obligation(o *Obligation) {
	o.Kind = Kind(r.b[r.i])
	r.i++
	if o.Kind < KindPromise || o.Kind > KindAgreement {
		panic("bad kind")
	}
	rec := &o.Record
	rec.Seq = r.int()
	rec.Offset = r.int()
	rec.TS = r.str()
	rec.At = r.int()
	rec.ID = r.str()
	rec.Text = r.str()
	rec.By = r.word()
	rec.To = r.word()
	rec.On = r.str()
	rec.Until = r.str()
	rec.UntilAt = r.int()
	if r.flag() {
		rec.extra = &recordExtra{task: r.str(), lapse: pinki.Lapse(r.word()), proposer: r.word(),
			schemaID: r.word(), schema: r.str(), meta: r.str()}
	}
	if n := r.count(); n > 0 {
		o.Events = make([]Ref, n)
		seq, off := rec.Seq, rec.Offset
		for i := range o.Events {
			seq += r.int()
			off += r.int()
			c := r.b[r.i]
			r.i++
			if int(c) >= len(typeCodes) || c == 0 {
				panic("bad type")
			}
			o.Events[i] = Ref{Seq: seq, Offset: off, Type: typeCodes[c]}
		}
	}
	if r.flag() {
		o.Resolution = &Resolution{Seq: r.int(), TS: r.str(), At: r.int(), As: pinki.Outcome(r.word()), By: r.word(), HorizonAt: r.int()}
	}
	if n := r.count(); n > 0 {
		o.Assessments = make([]Assessment, n)
		for i := range o.Assessments {
			o.Assessments[i] = Assessment{Seq: r.int(), At: r.int(), Observer: r.word(), State: r.word()}
		}
	}
	o.Rev = int(r.int())
	o.Version = int(r.int())
	o.amendUntil = r.str()
	o.amendUntilAt = r.int()
	o.lastPhase = pinki.Phase(r.word())
	if r.flag() {
		t := &terms{}
		for n := r.count(); n > 0; n-- {
			t.accepts = append(t.accepts, Accept{Seq: r.int(), TS: r.str(), At: r.int(), By: r.word(), Rev: int(r.int()), Meta: r.str()})
		}
		for n := r.count(); n > 0; n-- {
			t.binds = append(t.binds, Bind{Seq: r.int(), TS: r.str(), At: r.int(), By: r.word(), Target: r.str(), Meta: r.str()})
		}
		t.since = int(r.uint())
		if t.since > len(t.accepts) {
			panic("bad acceptance index")
		}
		o.terms = t
	}
}
