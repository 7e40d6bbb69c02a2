// The daily review's services (DESIGN.md §8 "The daily review"): one job each on the
// idempotency store's worker; writers are never re-sent after a dropped connection.
#include "Review.h"
#include "ReadOnlyText.h"
#include "ReviewSql.h"

#include "ReconcileConfig.h"
#include "PolicySql.h"
#include "Workspace.h"

namespace triage {

namespace {

template<typename T>
QFuture<Outcome<T>> refused(const Workspace &ws, const QString &what)
{
    return QtFuture::makeReadyFuture(
        Outcome<T>::failure(DbError{DbRole::Idempotency, DbError::Kind::Refused, readOnlyText(ws.config(), what), {}}));
}

} // namespace

QFuture<Outcome<ReviewSnapshot>> readReview(Workspace &ws, std::optional<QDate> day, const QString &noticedBy, int openLimit)
{
    const WorkspaceConfig config = ws.config();
    review_sql::ReviewReadOptions o;
    o.zone = reviewTimeZone(config);
    o.day = day;
    o.noticedBy = noticedBy.isEmpty() ? QStringLiteral("console") : noticedBy;
    o.write = !config.readOnly;
    o.generatedBy = claimOperator(ws, QString());
    o.openLimit = std::max(0, openLimit);
    o.slaHours = [config](const QString &bizType, const QMap<QString, QString> &dbPolicy) {
        return effectiveBizPolicy(config, dbPolicy, bizType).reviewSlaHours.value_or(24);
    };
    // A snapshot that may record breaches and daily rows (o.write) is a write: the primary. A
    // read-only one reads where plain reads go (DESIGN.md §9 "Read replicas").
    std::function<ReviewSnapshot(DbSession &)> job = [o](DbSession &s) { return review_sql::readSnapshot(s, o); };
    if (o.write)
        return ws.worker(DbRole::Idempotency).run<ReviewSnapshot>(job, DbWorker::Retry::Never);
    return ws.reader(DbRole::Idempotency).run<ReviewSnapshot>(job, {}, DbWorker::Retry::Never);
}

QFuture<Outcome<QVector<ReviewItem>>> readReviewItems(Workspace &ws, const ReviewSnapshot &snapshot, int limit)
{
    review_sql::ItemContext c;
    c.asOf = snapshot.asOfMicros;
    c.zone = snapshot.day.zone;
    if (snapshot.lastSignOff)
        c.signedAt = parseUtcMicros(snapshot.lastSignOff->signedAt);
    std::optional<std::pair<UtcMicros, qint64>> after;
    if (!snapshot.open.isEmpty()) {
        const Escalation &last = snapshot.open.last().row.escalation;
        after = std::make_pair(parseUtcMicros(last.firstEscalatedAt).value_or(0), last.id);
    }
    const int n = std::max(1, limit);
    return ws.reader(DbRole::Idempotency)
        .run<QVector<ReviewItem>>([c, after, n](DbSession &s) { return review_sql::readOpenItems(s, c, after, n); });
}

QFuture<Outcome<QString>> reviewChangeMark(Workspace &ws)
{
    const QTimeZone zone = reviewTimeZone(ws.config());
    return ws.reader(DbRole::Idempotency).run<QString>([zone](DbSession &s) { return review_sql::changeMark(s, zone); });
}

QFuture<Outcome<ReviewSignOff>> signOffReview(Workspace &ws, const ReviewSnapshot &snapshot, const QString &reportSha256,
                                              const QString &note)
{
    if (ws.config().readOnly)
        return refused<ReviewSignOff>(ws, QStringLiteral("a day cannot be signed off"));
    const QString who = claimOperator(ws, QString());
    return ws.worker(DbRole::Idempotency)
        .run<ReviewSignOff>([=](DbSession &s) { return review_sql::signOff(s, snapshot, reportSha256, note, who); },
                            DbWorker::Retry::Never);
}

QFuture<Outcome<qint64>> addReviewNote(Workspace &ws, qint64 escalationId, const QString &kind, const QString &text)
{
    if (ws.config().readOnly)
        return refused<qint64>(ws, QStringLiteral("review notes cannot be added"));
    const QString who = claimOperator(ws, QString());
    return ws.worker(DbRole::Idempotency)
        .run<qint64>([=](DbSession &s) { return review_sql::addNote(s, escalationId, kind, text, who); }, DbWorker::Retry::Never);
}

} // namespace triage
