package ledger

import (
	"context"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// Issue is one problem check found on one line.
type Issue struct {
	Seq     int64  `json:"line"`
	Type    string `json:"type,omitempty"`
	ID      string `json:"id,omitempty"`
	Problem string `json:"problem"`
}

// CheckReport is what `check` found. OK is true when nothing is wrong.
type CheckReport struct {
	Lines       int64   `json:"lines"`
	Obligations int     `json:"obligations"`
	Unknown     []Issue `json:"unknown"`    // lines this version cannot understand
	Ignored     []Issue `json:"ignored"`    // events the fold does not apply (dangling, second resolve, …)
	Violations  []Issue `json:"violations"` // events the fold applies but the rules would have refused
	OK          bool    `json:"ok"`
}

// Check reads the whole ledger afresh and reports every line that is not
// understood, every event the fold ignores, and every applied event that
// breaks a rule a write would have enforced (a hand-edited ledger). It does
// not use the service's fold or any snapshot.
//
// Errors: CodeUnavailable when the store cannot be read; CodeForbidden for
// a seat that is not an observer or admin (it reads every obligation).
func (s *Service) Check(ctx context.Context, who pinki.Identity) (CheckReport, error) {
	rep := CheckReport{Unknown: []Issue{}, Ignored: []Issue{}, Violations: []Issue{}}
	if who.Role == pinki.RoleSeat {
		return rep, forbidden("check reads every obligation: it needs an observer or admin token")
	}
	l := fold.New()
	pos, err := s.store.Read(ctx, pinki.Position{}, func(en pinki.Entry) error {
		if en.Err != nil {
			rep.Unknown = append(rep.Unknown, Issue{Seq: en.Seq, Problem: en.Err.Error()})
			l.ApplyEntry(&en)
			return nil
		}
		e := &en.Event
		var violation error
		if e.Type.Creates() || l.Get(e.Subject) != nil {
			violation = checkEvent(l, e, pinki.Identity{}, true)
		}
		before := len(l.Ignored())
		l.Apply(en.Seq, e)
		if ig := l.Ignored(); len(ig) > before {
			rep.Ignored = append(rep.Ignored, Issue{Seq: en.Seq, Type: string(e.Type), ID: e.Key(), Problem: ig[len(ig)-1].Why})
		} else if violation != nil {
			rep.Violations = append(rep.Violations, Issue{Seq: en.Seq, Type: string(e.Type), ID: e.Key(), Problem: violation.Error()})
		}
		return nil
	})
	if err != nil {
		return rep, pinki.AsError(err)
	}
	rep.Lines = pos.Seq
	rep.Obligations = l.Len()
	rep.OK = len(rep.Unknown) == 0 && len(rep.Ignored) == 0 && len(rep.Violations) == 0
	return rep, nil
}
