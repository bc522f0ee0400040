package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// bounds are the upper bounds (seconds) of the latency histogram's buckets.
var bounds = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type seriesKey struct {
	route string
	code  int
}

type series struct {
	buckets []uint64 // per bound, not cumulative
	count   uint64
	sum     float64
}

// metrics counts requests by route and status, with a latency histogram.
type metrics struct {
	mu     sync.Mutex
	series map[seriesKey]*series
}

func newMetrics() *metrics { return &metrics{series: map[seriesKey]*series{}} }

func (m *metrics) observe(route string, code int, d time.Duration) {
	sec := d.Seconds()
	i := sort.SearchFloat64s(bounds, sec)
	m.mu.Lock()
	defer m.mu.Unlock()
	k := seriesKey{route, code}
	s := m.series[k]
	if s == nil {
		s = &series{buckets: make([]uint64, len(bounds))}
		m.series[k] = s
	}
	if i < len(bounds) {
		s.buckets[i]++
	}
	s.count++
	s.sum += sec
}

// write writes the request metrics in the Prometheus text format.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	keys := make([]seriesKey, 0, len(m.series))
	snap := make(map[seriesKey]series, len(m.series))
	for k, s := range m.series {
		keys = append(keys, k)
		snap[k] = series{buckets: append([]uint64(nil), s.buckets...), count: s.count, sum: s.sum}
	}
	m.mu.Unlock()
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].route != keys[j].route {
			return keys[i].route < keys[j].route
		}
		return keys[i].code < keys[j].code
	})
	fmt.Fprintln(w, "# HELP pinki_http_requests_total HTTP requests by route and status code.")
	fmt.Fprintln(w, "# TYPE pinki_http_requests_total counter")
	for _, k := range keys {
		fmt.Fprintf(w, "pinki_http_requests_total{route=%s,code=\"%d\"} %d\n", label(k.route), k.code, snap[k].count)
	}
	fmt.Fprintln(w, "# HELP pinki_http_request_duration_seconds HTTP request latency by route and status code.")
	fmt.Fprintln(w, "# TYPE pinki_http_request_duration_seconds histogram")
	for _, k := range keys {
		s := snap[k]
		lbl := fmt.Sprintf("route=%s,code=\"%d\"", label(k.route), k.code)
		var cum uint64
		for i, b := range bounds {
			cum += s.buckets[i]
			fmt.Fprintf(w, "pinki_http_request_duration_seconds_bucket{%s,le=\"%s\"} %d\n", lbl, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		fmt.Fprintf(w, "pinki_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", lbl, s.count)
		fmt.Fprintf(w, "pinki_http_request_duration_seconds_sum{%s} %s\n", lbl, strconv.FormatFloat(s.sum, 'g', -1, 64))
		fmt.Fprintf(w, "pinki_http_request_duration_seconds_count{%s} %d\n", lbl, s.count)
	}
}

// label quotes a label value for the text format.
func label(v string) string {
	v = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
	return `"` + v + `"`
}

// serveMetrics answers GET /metrics: the request metrics, and gauges of the
// obligations the token may read (a seat's token sees its own; an observer's
// or admin's, every one): by state, and open and overdue by debtor seat.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	if err := newQuery(r).done(); err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	page, err := s.api.List(ctx, who, ledger.Filter{Scope: ledger.ScopeAll})
	if err != nil {
		return err
	}
	byState := map[fold.State]int{}
	open, overdue := map[string]int{}, map[string]int{}
	for _, it := range page.Items {
		byState[it.State]++
		if it.State.Open() {
			open[it.By]++
		}
		if it.State == fold.Overdue {
			overdue[it.By]++
		}
	}
	var b strings.Builder
	fmt.Fprintln(&b, "# HELP pinki_obligations Obligations by computed state.")
	fmt.Fprintln(&b, "# TYPE pinki_obligations gauge")
	for _, st := range fold.States {
		fmt.Fprintf(&b, "pinki_obligations{state=%s} %d\n", label(string(st)), byState[st])
	}
	gauge := func(name, help string, m map[string]int) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
		seats := make([]string, 0, len(m))
		for k := range m {
			seats = append(seats, k)
		}
		sort.Strings(seats)
		for _, seat := range seats {
			fmt.Fprintf(&b, "%s{seat=%s} %d\n", name, label(seat), m[seat])
		}
	}
	gauge("pinki_open", "Open obligations by debtor seat.", open)
	gauge("pinki_overdue", "Overdue obligations by debtor seat.", overdue)
	if f, ok := s.api.(follower); ok {
		fmt.Fprintln(&b, "# HELP pinki_ledger_events Ledger lines the server has folded.")
		fmt.Fprintln(&b, "# TYPE pinki_ledger_events gauge")
		fmt.Fprintf(&b, "pinki_ledger_events %d\n", f.Position().Seq)
	}
	s.metrics.write(&b)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, err = io.WriteString(w, b.String())
	return err
}
