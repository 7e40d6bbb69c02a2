#pragma once

#include "TimeText.h"
#include "Verdict.h"
#include "BizTypeConfig.h"
#include "RecordStatus.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace triage {

struct RecordDetail;
struct StatusMapping;

/// The state of a record as an operator saw it: what a compare-and-set must still find
/// (DESIGN.md §2 "compare-and-set"). `updatedAt` is a UTC microsecond number, parsed once
/// where the time enters (the store's text, `--expect-updated-at`); the compare-and-set
/// compares it as a time on every dialect, never through QDateTime (DESIGN.md §4 "Time").
struct ExpectedState {
    std::optional<qint64> status;     ///< nullopt: NULL
    std::optional<UtcMicros> updatedAt; ///< nullopt: NULL or unreadable text (then nothing matches)
    std::optional<qint64> version;    ///< only where the table has a version column
    /// The stored status value exactly as read (RecordDetail::statusStored); the
    /// compare-and-set compares it where set, else any stored spelling of `status`.
    std::optional<QString> statusStored;
};

/// The compare-and-set expectation for `record` as loaded: its status code, its updated_at
/// (parsed with parseUtcMicros()) and, only where `record.hasVersionColumn`, its version.
/// The one place an ExpectedState is built from a record (console, CLI, bulk, compensation).
ExpectedState expectedStateOf(const RecordDetail &record);

/// The status part of an ExpectedState given as text (`triagectl mark --expect-status S`,
/// DESIGN.md §5), read against the record table's status mapping:
/// - a console status name, PROCESSING, SUCCESS or FAILED (case-insensitive, spaces around
///   ignored): that status in any of its stored spellings;
/// - NULL (case-insensitive): a NULL status;
/// - anything else is the exact stored value (as `show --format json` prints status_stored;
///   nothing trimmed, case and spaces count), or that value as the status text shows it,
///   "UNKNOWN_CODE_<value>"; an integer status column takes it as an integer ("7").
/// When a text is both a status name (or NULL) and a stored value, the name wins: it matches
/// every spelling of that status, the stored one included where it is one; a stored value
/// no spelling matches is named by its UNKNOWN_CODE_<value> form. nullopt for an integer
/// status column given text that is not an integer (after UNKNOWN_CODE_), or empty text.
struct ExpectedStatusArg {
    std::optional<qint64> status;         ///< ExpectedState::status
    std::optional<QString> statusStored;  ///< ExpectedState::statusStored (set for a stored value)
};
std::optional<ExpectedStatusArg> expectedStatusFromText(const QString &text, const StatusMapping &mapping);

/// The latest upstream answer recorded for a key (a `query_upstream` row of triage_audit):
/// what it said and when it was recorded, on the idempotency database's clock.
struct RecordedUpstreamAnswer {
    qint64 auditId = 0;
    UpstreamAnswer answer = UpstreamAnswer::Unusable; ///< Unusable also when the row's evidence cannot be read
    std::optional<UtcMicros> at;                      ///< triage_audit.at (server time the answer was recorded)
    QString atText;                                   ///< the same, canonical text as stored
};

/// What the rules need to know about a record and its evidence before a manual mark: the
/// same facts as the verdict table (DESIGN.md §6 inputs) plus the times that decide whether
/// a NOT_FOUND is still proof of absence. Built by markFactsFrom() (Mark.h), never by hand
/// outside tests. Every time is on a database's clock, never the desktop's.
struct MarkFacts {
    bool recordExists = true;
    std::optional<qint64> fromStatus; ///< the status the operator saw (nullopt: NULL)
    /// The status the operator saw as shown (DESIGN.md §4 spelling, e.g. "UNKNOWN_CODE_weird"
    /// for a stored value no [idempotency.map] spelling matches), for refusals; empty: spelled
    /// from fromStatus.
    QString fromStatusText;
    bool stale = false;               ///< PROCESSING older than the processing timeout (DESIGN.md §4)
    int ticketCount = 0;              ///< ticket rows carrying the key
    int succeededAttempts = 0;        ///< intent-log attempts with status SUCCEEDED
    int escalatedAttempts = 0;        ///< intent-log attempts with status ESCALATED (an open escalation)
    /// A store whose evidence could not be read ("ticket store: …"); empty when all were read.
    QStringList storeErrors;

    int processingTimeoutS = 300;                          ///< the biz_type's processing timeout (s)
    FailedEvidence failedEvidence = FailedEvidence::Upstream; ///< the biz_type's `failed_evidence`
    int failedEvidenceMaxAgeS = 900;                       ///< the biz_type's `failed_evidence_max_age` (s)
    bool upstreamConfigured = false;                       ///< the biz_type has an upstream query API

    std::optional<UtcMicros> now;             ///< the idempotency database's clock when the facts were read
    std::optional<UtcMicros> updatedAt;       ///< the record's updated_at
    std::optional<UtcMicros> latestAttemptAt; ///< latest created_at / updated_at of the key's intent attempts (nullopt: none)
    bool attemptTimeUnreadable = false;       ///< an attempt's time could not be parsed (nothing can be proved after it)
    std::optional<RecordedUpstreamAnswer> upstream; ///< latest recorded upstream answer (nullopt: never queried)

    /// SUCCESS with --snapshot-from-ticket: the ticket named, and whether it carries the key.
    std::optional<BusinessId> snapshotTicketId;
    bool snapshotTicketCarriesKey = true;
};

/// The rules' answer: allowed or refused with the reason; `overridden` lists the
/// uncertainties an --override set aside ("; "-joined, audited), empty when none.
struct MarkDecision {
    bool allowed = false;
    QString reason;
    QString overridden;
};

/// Minimum length of the reason of every manual mark (DESIGN.md §2: every action has a reason).
constexpr int kMarkReasonMinLength = 10;
/// Minimum length of the reason that must accompany --override (DESIGN.md §6).
constexpr int kOverrideReasonMinLength = 20;

/// Decides whether a manual transition to `toStatus` is allowed (DESIGN.md §2 "Mark
/// SUCCESS / Mark FAILED", §6 "FAILED needs positive evidence of absence"). Pure: no I/O.
///
/// Every mark needs a reason of at least kMarkReasonMinLength characters (trimmed).
/// Allowed transitions: PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS; SUCCESS is
/// final. SUCCESS needs `snapshotIsJsonObject` (else `snapshotError` is the reason) and,
/// with a snapshot ticket, a ticket that carries the key.
///
/// FAILED is allowed only where the verdict table gives FAILED now. Evidence that the side
/// effect happened, or may still happen, refuses it and no override sets it aside: a record
/// that is not stale, a ticket carrying the key, a SUCCEEDED attempt, a latest recorded
/// upstream answer FOUND or AMBIGUOUS, a store that could not be read. Uncertainty refuses
/// it too, but `override` with a reason of at least kOverrideReasonMinLength characters
/// sets it aside (listed in `overridden`): an ESCALATED attempt, and for
/// `failed_evidence = upstream` a missing proof of absence — no recorded answer, a latest
/// answer that is not NOT_FOUND, or a NOT_FOUND recorded before updated_at +
/// processing_timeout, before the latest intent attempt, or longer ago than
/// failed_evidence_max_age. `failed_evidence = ticket_absent` needs no upstream answer.
/// `bulk`: part of a bulk run, which applies only where the rules allow (an override
/// is refused there: it is decided one key at a time).
MarkDecision decideMark(const MarkFacts &facts, RecordStatusCode toStatus, const QString &reason, bool override,
                        bool snapshotIsJsonObject, const QString &snapshotError, bool bulk = false);

} // namespace triage
