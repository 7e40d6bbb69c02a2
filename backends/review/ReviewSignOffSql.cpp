// The daily review's sign-off and notes (DESIGN.md §8 "The daily review"): one sign-off row
// per (day, zone) under a UNIQUE constraint; every write audited in the same transaction.
#include "ReviewSql.h"

#include "Audit.h"
#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "ReviewRecord.h"

#include <QJsonDocument>
#include <QSqlQuery>

namespace triage::review_sql {

namespace {

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QString signedText(const ReviewSignOff &o)
{
    return QStringLiteral("%1 (%2) is already signed off by %3 at %4").arg(o.day.toString(Qt::ISODate), o.zone, o.signedBy, o.signedAt);
}

} // namespace

ReviewSignOff signOff(DbSession &session, const ReviewSnapshot &snapshot, const QString &reportSha256, const QString &note,
                      const QString &signedBy)
{
    requireKnownConsoleSchema(session);
    requireReviewTables(session);
    const SqlDialect &d = session.dialect();
    const QString day = snapshot.day.day.toString(Qt::ISODate);
    const QString zone = reviewZoneName(snapshot.day.zone);
    const QString subject = QStringLiteral("review:%1/%2").arg(day, zone);
    if (snapshot.day.asOf.isValid() && snapshot.day.asOf < snapshot.day.from)
        throw DbException({session.role(), DbError::Kind::Refused,
                           QStringLiteral("%1 (%2) has not begun: a day is signed off once it has started").arg(day, zone), {}});
    if (note.size() > 1000)
        throw DbException({session.role(), DbError::Kind::Config,
                           QStringLiteral("a sign-off note is at most 1000 characters (got %1)").arg(note.size()), {}});
    AuditEntry a = auditStamp(audit_action::ReviewSignOff, subject, signedBy, auditDbUser(session.profile()));
    const QString counts = compact(countsJson(snapshot.totals));
    const QString buckets = compact(openByBucketJson(snapshot.totals));
    a.toState = compact({{QStringLiteral("day"), day},
                         {QStringLiteral("zone"), zone},
                         {QStringLiteral("counts"), countsJson(snapshot.totals)},
                         {QStringLiteral("open_by_bucket"), openByBucketJson(snapshot.totals)},
                         {QStringLiteral("report_sha256"), reportSha256}});
    a.reason = note.isEmpty() ? QStringLiteral("") : note.left(1000); // NOT NULL column: never a null QString
    session.begin();
    try {
        SqlBuilder b;
        const QString sql =
            QStringLiteral("INSERT INTO triage_review_signoff (day, zone, window_from, window_to, signed_by, signed_at, counts, "
                           "open_by_bucket, report_sha256, note) VALUES (%1, %2, %3, %4, %5, %6, %7, %8, %9, %10)")
                .arg(b.bind(day), b.bind(zone), d.timeParam(b.bind(d.bindTime(snapshot.day.from.toMSecsSinceEpoch() * 1000))),
                     d.timeParam(b.bind(d.bindTime(snapshot.day.to.toMSecsSinceEpoch() * 1000))), b.bind(signedBy.left(64)),
                     d.nowValue(), b.bind(counts), b.bind(buckets), b.bind(reportSha256))
                .arg(b.bind(note.isNull() ? QStringLiteral("") : note));
        session.insertReturningId(sql, b);
        a.outcome = QStringLiteral("applied");
        audit_sql::insert(session, a);
        session.commit();
    } catch (const DbException &e) {
        session.rollback();
        if (!e.error.isUniqueViolation())
            throw;
        // Signed already (by someone else a moment ago, or earlier): nothing written but the
        // conflict's audit row.
        const std::optional<ReviewSignOff> existing = signOffOf(session, snapshot.day.day, zone);
        const QString why = existing ? signedText(*existing) : QStringLiteral("%1 (%2) is already signed off").arg(day, zone);
        a.outcome = QStringLiteral("conflict");
        a.detail = why;
        audit_sql::insert(session, a);
        throw DbException({session.role(), DbError::Kind::Conflict, why, {}});
    }
    const std::optional<ReviewSignOff> row = signOffOf(session, snapshot.day.day, zone);
    if (!row)
        throw DbException({session.role(), DbError::Kind::Statement,
                           QStringLiteral("the sign-off of %1 (%2) was written but cannot be read back").arg(day, zone), {}});
    return *row;
}

qint64 addNote(DbSession &session, qint64 escalationId, const QString &kind, const QString &text, const QString &by)
{
    requireKnownConsoleSchema(session);
    requireReviewTables(session);
    auto config = [&](const QString &why) { return DbException({session.role(), DbError::Kind::Config, why, {}}); };
    if (kind != QLatin1String("reviewed") && kind != QLatin1String("note"))
        throw config(QStringLiteral("a review note is of kind reviewed or note, not \"%1\"").arg(kind));
    const QString body = text.trimmed();
    if (kind == QLatin1String("note") && body.isEmpty())
        throw config(QStringLiteral("a note needs text"));
    if (body.size() > 1000)
        throw config(QStringLiteral("a note is at most 1000 characters (got %1)").arg(body.size()));
    const std::optional<Escalation> e = escalation_sql::byId(session, escalationId);
    if (!e)
        throw config(QStringLiteral("no escalation %1").arg(escalationId));
    AuditEntry a = auditStamp(kind == QLatin1String("reviewed") ? audit_action::ReviewReviewed : audit_action::ReviewNote, e->idemKey, by,
                              auditDbUser(session.profile()));
    a.reason = body.isEmpty() ? QStringLiteral("") : body; // NOT NULL column: never a null QString
    a.detail = QStringLiteral("escalation %1 (%2)").arg(escalationId).arg(escalationReasonName(e->reason));
    a.outcome = QStringLiteral("applied");
    session.begin();
    try {
        SqlBuilder b;
        const qint64 id = session.insertReturningId(
            QStringLiteral("INSERT INTO triage_review_note (escalation_id, kind, note_text, noted_by, noted_at) VALUES (%1, %2, %3, %4, %5)")
                .arg(b.bind(escalationId), b.bind(kind), b.bind(body.isNull() ? QStringLiteral("") : body), b.bind(by.left(64)),
                     session.dialect().nowValue()),
            b);
        audit_sql::insert(session, a);
        session.commit();
        return id;
    } catch (...) {
        session.rollback();
        throw;
    }
}

} // namespace triage::review_sql
