#pragma once

#include "AuditEntry.h"
#include "BizTypeConfig.h"
#include "BusinessId.h"
#include "CompensationRow.h"
#include "DbError.h"
#include "SafetyPolicy.h"
#include "TimeText.h"

#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// Nullable text as read from a store: nullopt is SQL NULL (shown as NULL), "" is empty.
using NullableText = std::optional<QString>;

/// One idempotency record with every field (DESIGN.md §2 detail view). Times are
/// canonical ISO UTC text (null string = NULL). Ages come from the server's clock.
struct RecordDetail {
    qint64 id = 0;
    QString idemKey;
    NullableText bizType;
    QString statusText;            ///< DESIGN.md §4 spelling, "NULL", or "UNKNOWN_CODE_<n>"
    std::optional<qint64> statusCode;  ///< the console's code (RecordStatusCode) or, for the seeds' integer codes, an unknown one
    NullableText statusStored;         ///< the status exactly as stored, as text (what a compare-and-set compares)
    NullableText resultSnapshot;
    QString createdAt, updatedAt, expireAt;
    std::optional<qint64> version; ///< when the table has a version column
    bool hasVersionColumn = false;
    /// False when the record table has no expire_at (mapped empty, DESIGN.md §10): expireAt
    /// then stays null and says nothing about reaping.
    bool hasExpireAtColumn = true;
    /// What the ages (ageSeconds, expiresInSeconds, stale) are measured against (DESIGN.md §7
    /// "Bundles"): Live, the database's clock as just read; AtExport, the database's clock when
    /// a bundle's export read the record (serverNow), shown "before the export"; Unknown, a
    /// bundle that does not carry them (format version 1 or 2: ageSeconds NaN, no expiry).
    enum class AgeBasis { Live, AtExport, Unknown };
    AgeBasis ageBasis = AgeBasis::Live;
    double ageSeconds = 0;         ///< now() - updated_at (s); NaN when ageBasis is Unknown
    std::optional<double> expiresInSeconds; ///< expire_at - now() (s); nullopt when expire_at is NULL
    int processingTimeoutS = 300;
    /// The biz_type's `failed_evidence` and `failed_evidence_max_age` (s), and whether it
    /// has an upstream query API (DESIGN.md §6 "FAILED needs positive evidence of absence").
    FailedEvidence failedEvidence = FailedEvidence::Upstream;
    int failedEvidenceMaxAgeS = 900;
    /// The biz_type's effective safety policy when read (the database's triage_policy made
    /// stricter by the local INI: effectiveBizPolicy(), DESIGN.md §8 "Safety policy");
    /// failedEvidence and failedEvidenceMaxAgeS above already follow it.
    BizPolicy policy;
    bool upstreamConfigured = false;
    bool stale = false;            ///< PROCESSING and updated_at < now() - timeout (DESIGN.md §4)
    QString tenant;                ///< from the key by the biz_type's tenant pattern
    QString serverNow;             ///< the server's clock when read
    /// Every column of the row as the driver returned it (name → display text, "NULL"),
    /// including columns the console does not know.
    QVector<QPair<QString, QString>> allColumns;
    /// The names of allColumns whose value is SQL NULL (shown "NULL" there, so a text "NULL"
    /// stays distinguishable): `show --format json` prints them as null.
    QStringList nullColumns;
    /// True when the stored status is a number as the database returned it (an integer
    /// status column; SQLite's number in any column): `show --format json` prints
    /// status_stored as a JSON number then, else as a string (DESIGN.md §10).
    bool statusStoredIsNumber = false;
    /// The real names of the columns the schema mapping names (id, idem_key, biz_type,
    /// status, result_snapshot, created_at, updated_at, expire_at, version, and the tenant
    /// column where one is mapped; DESIGN.md §10): `show` lists the other columns of
    /// allColumns as the table's "other" columns. The default schema's names unless
    /// readRecord() fills them from the mapping.
    QStringList mappedColumns{QStringLiteral("id"),         QStringLiteral("idem_key"),   QStringLiteral("biz_type"),
                              QStringLiteral("status"),     QStringLiteral("result_snapshot"), QStringLiteral("created_at"),
                              QStringLiteral("updated_at"), QStringLiteral("expire_at"),  QStringLiteral("version")};
    /// Whether the column `name` of allColumns is one of mappedColumns (case-insensitive,
    /// as unquoted SQL names match).
    bool isMappedColumn(const QString &name) const { return mappedColumns.contains(name, Qt::CaseInsensitive); }
    /// Text columns whose stored bytes are not valid UTF-8, shown escapeInvalidUtf8()-escaped
    /// (TextEscape.h; DESIGN.md §4 "Odd bytes"): "result_snapshot".
    QStringList escapedColumns;
};

/// One ticket row carrying the key.
struct TicketRow {
    BusinessId id;              ///< ticket.id exactly as stored (an opaque value: BIGINT, VARCHAR or UUID)
    NullableText idemKey, tenantId, title, status, payload;
    QString createdAt, updatedAt;
    /// False when the ticket table has no updated_at (mapped empty, DESIGN.md §10):
    /// updatedAt then stays null and the timeline has no "updated" event.
    bool hasUpdatedAtColumn = true;
    QStringList escapedColumns; ///< the title / payload column names when not valid UTF-8 (shown escaped, TextEscape.h)
};

/// One intent-log attempt (one row).
struct IntentAttempt {
    qint64 id = 0;
    NullableText taskId, stepId, action, idemKey, status, request, response, error, stateBefore, stateAfter, actor;
    QString createdAt, updatedAt;
    QStringList escapedColumns; ///< "request", "response", "error", "state_before", "state_after" when not valid UTF-8 (escaped)
};

/// One entry of the merged timeline (DESIGN.md §2): time, source store, kind, summary.
struct TimelineEvent {
    QString time;                   ///< canonical ISO UTC, or the raw text when unparsable
    std::optional<UtcMicros> micros;
    QString source;                 ///< "idempotency_record", "intent_log", "ticket", …
    QString kind;                   ///< "created", "updated", "intent", "result", …
    QString summary;                ///< one line
    /// Row id in its source: a ticket's business id as stored, the console's and the
    /// agents' own rows' numeric id as its decimal text (BusinessId orders numbers numerically).
    BusinessId refId;
};

/// Everything known about one key, from all three stores. A store that failed leaves
/// its part empty and its error in `errors`, so the rest still shows.
struct KeyDetail {
    QString idemKey;
    std::optional<RecordDetail> record; ///< nullopt: no record with this key (or its store failed)
    QVector<TicketRow> tickets;
    QVector<IntentAttempt> attempts;
    QVector<AuditEntry> audit;          ///< operator actions on this key (triage_audit), oldest first
    /// Compensations whose source is this key (triage_compensation, intent-log database;
    /// empty when the table does not exist), oldest first.
    QVector<CompensationRow> compensations;
    /// Every attempt row (calls and confirmation queries) of those compensations
    /// (triage_compensation_attempt), per compensation in id order, compensations oldest first.
    QVector<CompensationAttemptRow> compensationAttempts;
    QVector<TimelineEvent> timeline;
    QStringList warnings;               ///< expiry and data problems, for operators
    QMap<DbRole, DbError> errors;
    /// Stores whose part failed in this read and is shown as read before (keepEarlierParts()).
    QList<DbRole> keptFromEarlier;
};

} // namespace triage
