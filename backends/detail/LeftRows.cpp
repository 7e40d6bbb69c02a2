// Why a record row left a live queue (LeftRows.h).
#include "LeftRows.h"

#include "Audit.h"
#include "KeyDetailBulk.h"
#include "Workspace.h"

namespace triage {

namespace {

/// "12:01:05" of an ISO UTC text ("2026-12-03T12:01:05.123456Z"), or the text as it is.
QString clockOf(const QString &iso)
{
    return iso.size() >= 19 && iso.at(10) == QLatin1Char('T') ? iso.mid(11, 8) : iso;
}

bool isMark(const AuditEntry &e)
{
    return e.outcome == QLatin1String("applied")
        && (e.action == QStringView(audit_action::MarkSuccess) || e.action == QStringView(audit_action::MarkFailed));
}

} // namespace

QString leftRowReason(const std::optional<RecordDetail> &now, const std::optional<AuditEntry> &lastMark)
{
    if (!now)
        return QStringLiteral("record gone");
    const QString status = now->statusText;
    if (lastMark) {
        const QString marked = lastMark->action == QStringView(audit_action::MarkSuccess) ? QStringLiteral("SUCCESS")
                                                                                          : QStringLiteral("FAILED");
        if (marked == status)
            return QStringLiteral("settled %1 by %2 at %3 UTC").arg(status, lastMark->operatorName, clockOf(lastMark->at));
    }
    if (status == QLatin1String("PROCESSING"))
        return QStringLiteral("still PROCESSING, changed at %1 UTC").arg(clockOf(now->updatedAt));
    return QStringLiteral("now %1 (no operator mark recorded: an agent or another tool changed it)").arg(status);
}

QFuture<Outcome<QHash<QString, QString>>> readLeftRowReasons(Workspace &ws, const QStringList &keys)
{
    const WorkspaceConfig config = ws.config();
    return ws.reader(DbRole::Idempotency).run<QHash<QString, QString>>([config, keys](DbSession &s) {
        QHash<QString, RecordDetail> records;
        for (const RecordDetail &r : detail_sql::readRecords(s, config, keys))
            records.insert(r.idemKey, r);
        QHash<QString, AuditEntry> marks; // the latest applied mark per key (rows come by at, then id)
        for (const AuditEntry &e : audit_sql::readForKeys(s, keys))
            if (isMark(e))
                marks.insert(e.idemKey, e);
        QHash<QString, QString> reasons;
        for (const QString &k : keys)
            reasons.insert(k, leftRowReason(records.contains(k) ? std::optional<RecordDetail>(records.value(k)) : std::nullopt,
                                            marks.contains(k) ? std::optional<AuditEntry>(marks.value(k)) : std::nullopt));
        return reasons;
    });
}

} // namespace triage
