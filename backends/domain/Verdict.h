#pragma once

#include "BusinessId.h"
#include "UpstreamEvidence.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

struct KeyDetail;

/// The suggested outcome for one key (DESIGN.md §6).
enum class VerdictKind { Wait, Duplicate, Unknown, Success, Failed };

/// "WAIT", "DUPLICATE", "UNKNOWN", "SUCCESS", "FAILED".
QString verdictName(VerdictKind v);

/// The upstream's answer as the verdict table sees it.
enum class UpstreamAnswer { Found, Ambiguous, NotFound, Unusable, NotConfigured };

/// "FOUND", "AMBIGUOUS", "NOT_FOUND", "UNUSABLE", "NOT_CONFIGURED".
QString upstreamAnswerName(UpstreamAnswer a);

/// The verdict table's view of an evidence: its classification (Unusable of kind
/// not_configured stays UNUSABLE; only NOT_CONFIGURED evidence is NotConfigured).
UpstreamAnswer upstreamAnswerOf(const UpstreamEvidence &evidence);

/// One ticket row carrying the key, as far as the verdict needs it.
struct VerdictTicket {
    BusinessId id;                  ///< ticket.id as stored (opaque)
    std::optional<QString> payload; ///< ticket.payload exactly as stored (nullopt: NULL)
    std::optional<QString> status;  ///< ticket.status (OPEN, CLOSED, CANCELLED; nullopt: NULL)
    QString createdAt;              ///< canonical ISO UTC (orders the tickets for the canonical rule)
};

/// The facts the verdict is computed from (DESIGN.md §6 "Inputs").
struct VerdictInput {
    /// The record's staleness (DESIGN.md §4). Row 1 (WAIT) applies when this is false.
    bool recordStale = false;
    /// Words for the record fact in the reason ("PROCESSING, updated 6m 12s ago, timeout
    /// 300 s"); optional.
    QString recordNote;
    QVector<VerdictTicket> tickets;  ///< oldest first; count is what the table uses
    /// The record's status text and snapshot: a SUCCESS snapshot names the canonical ticket
    /// (DESIGN.md §6 "Canonical ticket").
    QString recordStatus;
    std::optional<QString> recordSnapshot;
    QStringList attemptStatuses;     ///< intent-log attempt statuses for the key ("SUCCEEDED", "UNKNOWN", …)
    UpstreamAnswer upstream = UpstreamAnswer::NotConfigured;
    /// FOUND: the upstream object's raw JSON text (UpstreamEvidence::foundObjects[0]).
    QString upstreamObject;
    /// Words for the upstream fact ("HTTP 404 with the upstream's JSON body"); optional.
    QString upstreamNote;
    /// The biz_type declares `failed_evidence = ticket_absent` (DESIGN.md §6): its side
    /// effect is the ticket row, so a stale record without ticket is FAILED (row 7) even
    /// when the upstream is unusable or not configured.
    bool ticketAbsentIsEvidence = false;
};

/// The suggested verdict with its reason and, for SUCCESS, the snapshot to write.
struct Verdict {
    VerdictKind kind = VerdictKind::Unknown;
    int row = 0;              ///< the DESIGN.md §6 row that matched (1..8)
    QString why;              ///< the table's "why" column for that row
    QStringList facts;        ///< every fact used, one line each ("tickets: 1 (#17)")
    QString reason;           ///< "§6 row 4 → SUCCESS: … Facts: …; …" (one paragraph for operators)
    /// SUCCESS only: the result_snapshot to write, byte-exact (the ticket's payload or the
    /// upstream object's raw text); nullopt when the ticket's payload is NULL.
    std::optional<QString> snapshot;
    QString snapshotSource;   ///< SUCCESS: "ticket:<id>" or "upstream"; else empty
    /// DUPLICATE: the ticket to keep by the canonical-ticket rule (canonicalTicket(): the one
    /// the SUCCESS snapshot names, else the earliest live one); nullopt when there is none.
    std::optional<BusinessId> canonicalTicketId;
    /// DUPLICATE: the business payload fields that differ between the tickets (keyReuseFields());
    /// non-empty means key reuse, not retries: no compensation without an override.
    QStringList keyReuseFields;

    /// A compact JSON object (UTF-8) for `--format json` and audit evidence: "verdict",
    /// "row", "why", "facts", "reason", "snapshot" (a JSON *string*, byte-exact, or null),
    /// "snapshot_source", "canonical_ticket_id" (BusinessId::toJson(): a number for an integer id,
    /// else a string; or null), "key_reuse_fields" (an
    /// array). `maxTextBytes` ≥ 0 bounds the snapshot for audit evidence
    /// (boundedJsonValue()'s cut object when longer); -1: in full.
    QByteArray toJson(qsizetype maxTextBytes = -1) const;
};

/// Attempt lists up to this long are spelled out in the verdict's facts; longer ones are
/// summarised (attemptsFact()).
constexpr qsizetype kAttemptsListedInFull = 10;

/// The verdict's fact about the intent-log attempts, bounded and readable whatever their
/// number: "intent-log attempts: none"; up to kAttemptsListedInFull: "intent-log attempts: 2
/// (FAILED, UNKNOWN; no SUCCEEDED attempt)"; more: the counts per status (most frequent
/// first, ties by name), the first and last status, and the SHA-256 (lowercase hex) of the
/// full list — the statuses oldest first joined by "\n", UTF-8 — so the summary can be
/// checked against the intent-log rows themselves: "intent-log attempts: 20000 (19999
/// UNKNOWN, 1 SUCCEEDED; first UNKNOWN, last SUCCEEDED; SHA-256 of the statuses oldest
/// first, one per line: 3a…; a SUCCEEDED attempt is present)". `succeeded`: whether any
/// attempt is SUCCEEDED (case-insensitive).
QString attemptsFact(const QStringList &statuses, bool succeeded);

/// DESIGN.md §6, exactly, first matching row wins:
/// 1 not stale → WAIT; 2 ≥ 2 tickets or AMBIGUOUS → DUPLICATE; 3 1 ticket + NOT_FOUND →
/// UNKNOWN; 4 1 ticket (FOUND, UNUSABLE, NOT_CONFIGURED) → SUCCESS from the ticket row;
/// 5 0 tickets + FOUND → SUCCESS from the upstream object; 6 0 tickets + NOT_FOUND +
/// a SUCCEEDED or ESCALATED attempt → UNKNOWN; 7 0 tickets + NOT_FOUND (or, with
/// ticketAbsentIsEvidence, any upstream answer but FOUND / AMBIGUOUS), no SUCCEEDED or
/// ESCALATED attempt → FAILED; 8 0 tickets + UNUSABLE / NOT_CONFIGURED → UNKNOWN. Row 7 is
/// exactly where the mark rules allow FAILED (MarkRules.h). Pure; no I/O.
Verdict suggestVerdict(const VerdictInput &input);

/// Builds the input from a key's detail and the upstream's evidence (nullptr: the upstream
/// was not queried; the table then treats it like NOT_CONFIGURED and the note says "not
/// queried"). Staleness: only a PROCESSING record younger than its timeout counts as not
/// stale (row 1); a stale, SUCCESS, FAILED or missing record does not hold the verdict at
/// WAIT (the note says which).
VerdictInput verdictInputFrom(const KeyDetail &detail, const UpstreamEvidence *evidence);

} // namespace triage
