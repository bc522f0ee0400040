package reconcile

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for people: a summary line, then each
// misaligned id with its differences and the two records side by side, one
// row per field, A's column beside B's.
//
// Errors: the writer's.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "reconcile at %s\n  A  %s\n  B  %s\n", r.Now, r.A, r.B)
	fmt.Fprintf(&b, "%d held by both (%d aligned), %d only in A, %d only in B; %d misaligned\n",
		r.Both, r.Aligned, r.OnlyA, r.OnlyB, len(r.Entries))
	for _, e := range r.Entries {
		kinds := make([]string, len(e.Kinds))
		for i, k := range e.Kinds {
			kinds[i] = string(k)
		}
		fmt.Fprintf(&b, "\n%s  [%s]\n", e.ID, strings.Join(kinds, ", "))
		for _, d := range e.Differences {
			fmt.Fprintf(&b, "  - %s\n", d)
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    \tA\tB\n")
		for _, row := range rows(e.A, e.B) {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", row[0], row[1], row[2])
		}
		tw.Flush()
	}
	for _, u := range r.Unknown {
		fmt.Fprintf(&b, "\nnot understood: %s\n", u)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rows lays the two records out field by field; a side that lacks the id
// shows "—" on every row. Assessments take one row each.
func rows(a, b *SideRecord) [][3]string {
	cell := func(r *SideRecord, f func(*SideRecord) string) string {
		if r == nil {
			return "—"
		}
		if v := f(r); v != "" {
			return v
		}
		return "-"
	}
	out := [][3]string{}
	for _, f := range []struct {
		name string
		get  func(*SideRecord) string
	}{
		{"promise", func(r *SideRecord) string { return r.Promise }},
		{"by", func(r *SideRecord) string { return r.By }},
		{"to", func(r *SideRecord) string { return r.To }},
		{"until", func(r *SideRecord) string { return r.Until }},
		{"state", func(r *SideRecord) string {
			if r.Late {
				return string(r.State) + " (late)"
			}
			return string(r.State)
		}},
		{"resolution", func(r *SideRecord) string {
			if r.Resolution == nil {
				return ""
			}
			return resolution(r.Resolution)
		}},
	} {
		out = append(out, [3]string{f.name, cell(a, f.get), cell(b, f.get)})
	}
	n := 0
	if a != nil {
		n = len(a.Assessments)
	}
	if b != nil && len(b.Assessments) > n {
		n = len(b.Assessments)
	}
	assess := func(r *SideRecord, i int) string {
		switch {
		case r == nil:
			return "—"
		case i >= len(r.Assessments):
			return ""
		}
		as := r.Assessments[i]
		s := as.State + " by " + as.Observer + " at " + as.TS
		if as.Note != "" {
			s += ": " + as.Note
		}
		return s
	}
	for i := 0; i < n; i++ {
		name := ""
		if i == 0 {
			name = "assessments"
		}
		out = append(out, [3]string{name, assess(a, i), assess(b, i)})
	}
	if n == 0 {
		out = append(out, [3]string{"assessments", cell(a, func(*SideRecord) string { return "" }), cell(b, func(*SideRecord) string { return "" })})
	}
	return out
}
