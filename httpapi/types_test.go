package httpapi

import "github.com/pinki-ledger/pinki/ledger"

// Values of the answer types the OpenAPI test compares with the document.
var (
	ledgerReceipt     = ledger.Receipt{}
	ledgerItem        = ledger.Item{}
	ledgerPage        = ledger.Page{}
	ledgerDetail      = ledger.Detail{}
	ledgerInbox       = ledger.Inbox{}
	ledgerBriefing    = ledger.Briefing{}
	ledgerBriefItem   = ledger.BriefItem{}
	ledgerAgreements  = ledger.AgreementSet{}
	ledgerCheck       = ledger.CheckReport{}
	ledgerIssue       = ledger.Issue{}
	ledgerEventRecord = ledger.EventRecord{}
	ledgerExport      = ledger.ExportDoc{}
	ledgerResolution  = ledger.ResolutionView{}
	ledgerAssessment  = ledger.AssessmentView{}
	ledgerAmend       = ledger.AmendView{}
	ledgerAccept      = ledger.AcceptView{}
	ledgerProgress    = ledger.ProgressView{}
	ledgerBind        = ledger.BindView{}
	ledgerIgnored     = ledger.IgnoredView{}
)
