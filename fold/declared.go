package fold

// declaredIDs is a Bloom filter over every id a ledger declared, kept by a
// seat's view (Subset), which holds only the seat's open obligations: when
// the lines after the view declare an id for the seat, the filter tells
// whether the whole ledger may already hold that id (then the fold ignores
// the second declaration, and the view, not knowing, must give up). A false
// positive only costs a full fold; there are no false negatives.
//
// Ten bits per id and seven probes keep false positives near 1%: 1.2 MiB for
// a million ids.
type declaredIDs struct {
	bits []uint64
}

const declaredProbes = 7

// newDeclaredIDs returns a filter sized for n ids and some growth.
func newDeclaredIDs(n int) *declaredIDs {
	words := (n + n/4 + 1024) * 10 / 64
	return &declaredIDs{bits: make([]uint64, words)}
}

// probes returns the two halves of id's 64-bit FNV-1a hash, combined as
// h1 + i*h2 for the i-th probe (Kirsch and Mitzenmacher), in 64-bit
// arithmetic so that no filter size wraps. The hash is fixed: the filter is
// stored in snapshots.
func probes(id string) (h1, h2 uint64) {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h & 0xffffffff, h>>32 | 1
}

func (d *declaredIDs) add(id string) {
	m := uint64(len(d.bits)) * 64
	h1, h2 := probes(id)
	for i := uint64(0); i < declaredProbes; i++ {
		b := (h1 + i*h2) % m
		d.bits[b/64] |= 1 << (b % 64)
	}
}

// mayHold reports whether id may have been added: false means it never was.
func (d *declaredIDs) mayHold(id string) bool {
	m := uint64(len(d.bits)) * 64
	h1, h2 := probes(id)
	for i := uint64(0); i < declaredProbes; i++ {
		b := (h1 + i*h2) % m
		if d.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}
