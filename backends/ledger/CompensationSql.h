#pragma once

#include "CompensationKeys.h"
#include "CompensationReply.h"
#include "CompensationRow.h"
#include "DbSession.h"

#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// Filters for listing compensations.
struct CompensationQuery {
    std::optional<CompensationStatus> status;
    QString sourceKey;  ///< exact, or empty for all
    int limit = 100;    ///< 0 = no limit
};

/// The SQL of compensations (intent-log database, tables triage_compensation and
/// triage_compensation_attempt). Runs on a worker's session; every value is bound; the
/// statuses and classifications are written through their one name mapping
/// (compensationStatusName(), sendClassName(), confirmClassName()). Each function throws
/// DbException; each writer first refuses (kind Refused) on a database whose console schema
/// is newer than this build's (requireKnownConsoleSchema(), DESIGN.md §10).
namespace compensation_sql {
/// Reads compensations, oldest first.
QVector<CompensationRow> read(DbSession &session, const CompensationQuery &query);
/// The compensation with `compKey`, if any.
std::optional<CompensationRow> byKey(DbSession &session, const QString &compKey);
/// Every attempt of `compKey`, in order.
QVector<CompensationAttemptRow> attempts(DbSession &session, const QString &compKey);
/// The compensations whose source is one of `sourceKeys` (each bound; at most a few hundred),
/// oldest first across them; the caller groups them by source_key. Empty: nothing read.
QVector<CompensationRow> readForSources(DbSession &session, const QStringList &sourceKeys);
/// Every attempt of the compensations `compKeys` (each bound), by id; grouped by the caller.
QVector<CompensationAttemptRow> attemptsOf(DbSession &session, const QStringList &compKeys);
/// Inserts the intent row of `r` (status INTENT, 0 attempts, the server's time) in its own
/// transaction and returns it as stored. A second intent for the same comp_key is a unique
/// violation (DbError::isUniqueViolation()).
CompensationRow insertIntent(DbSession &session, const CompensationRow &r);
/// Claims the next call by compare-and-set on the attempt counter (another console that
/// sent meanwhile makes it match no row: returns 0) and writes its IN_FLIGHT attempt row, in
/// one transaction, before the call is sent. Returns the attempt row's id (-1 when the
/// driver gives none).
qint64 beginSend(DbSession &session, const QString &compKey, int seenAttempts);
/// Records the reply `r` classified `classification`: completes attempt row `attemptId`
/// when > 0 (a call begun by beginSend()), else inserts a new row of `kind` ("confirm", or
/// "send" when the call's row could not be read back).
void recordAttempt(DbSession &session, const QString &compKey, qint64 attemptId, const QString &kind,
                   const CompensationHttpResult &r, const QString &classification);
/// Sets the compensation's status, last_error (NULL when "") and response (kept when
/// `response` is null), and updated_at to the server's time.
void setStatus(DbSession &session, const QString &compKey, CompensationStatus status, const QString &lastError,
               const QByteArray &response);
} // namespace compensation_sql

} // namespace triage
