// TEMPORARY STUB of Review.h (issue 16), only so the console and the view tests link before
// the review backend (h-review-core: triage_review) is merged. views/CMakeLists.txt compiles
// this file ONLY when no target triage_review exists; delete it when that backend is merged.
// The pure bucket and day functions follow Review.h's contract; the database functions fail
// with Config "the review backend is not built in this binary".
#include "Review.h"

#include <QtConcurrent/QtConcurrentRun>

namespace triage {

QString ageBucketLabel(AgeBucket b)
{
    switch (b) {
    case AgeBucket::Under1Day: return QStringLiteral("< 24 h");
    case AgeBucket::OneToThreeDays: return QStringLiteral("1–3 d");
    case AgeBucket::ThreeToSevenDays: return QStringLiteral("3–7 d");
    case AgeBucket::OverSevenDays: return QStringLiteral("> 7 d");
    }
    return {};
}

QString ageBucketKey(AgeBucket b)
{
    switch (b) {
    case AgeBucket::Under1Day: return QStringLiteral("lt_24h");
    case AgeBucket::OneToThreeDays: return QStringLiteral("1_3d");
    case AgeBucket::ThreeToSevenDays: return QStringLiteral("3_7d");
    case AgeBucket::OverSevenDays: return QStringLiteral("gt_7d");
    }
    return {};
}

QVector<AgeBucket> allAgeBuckets()
{
    return {AgeBucket::Under1Day, AgeBucket::OneToThreeDays, AgeBucket::ThreeToSevenDays, AgeBucket::OverSevenDays};
}

AgeBucket ageBucketOf(const QDateTime &firstEscalated, const QDateTime &asOf, const QTimeZone &zone)
{
    const QDateTime local = asOf.toTimeZone(zone);
    if (firstEscalated <= local.addDays(-7))
        return AgeBucket::OverSevenDays;
    if (firstEscalated <= local.addDays(-3))
        return AgeBucket::ThreeToSevenDays;
    if (firstEscalated <= local.addDays(-1))
        return AgeBucket::OneToThreeDays;
    return AgeBucket::Under1Day;
}

ReviewDay ReviewDay::of(QDate day, const QTimeZone &zone)
{
    ReviewDay d;
    d.day = day;
    d.zone = zone.isValid() ? zone : QTimeZone::utc();
    d.from = QDateTime(day, QTime(0, 0), d.zone).toUTC();
    d.to = QDateTime(day.addDays(1), QTime(0, 0), d.zone).toUTC();
    d.asOf = d.to;
    return d;
}

ReviewDay ReviewDay::containing(const QDateTime &instant, const QTimeZone &zone)
{
    ReviewDay d = of(instant.toTimeZone(zone.isValid() ? zone : QTimeZone::utc()).date(), zone);
    d.asOf = std::min(d.to, instant.toUTC());
    return d;
}

namespace {
DbError notBuilt()
{
    DbError e;
    e.kind = DbError::Kind::Config;
    e.message = QStringLiteral("the review backend is not built in this binary (issue 16)");
    return e;
}
} // namespace

QFuture<Outcome<ReviewSnapshot>> readReview(Workspace &, std::optional<QDate>, const QString &)
{
    return QtConcurrent::run([] { return Outcome<ReviewSnapshot>::failure(notBuilt()); });
}

QFuture<Outcome<ReviewSignOff>> signOffReview(Workspace &, const ReviewSnapshot &, const QString &, const QString &)
{
    return QtConcurrent::run([] { return Outcome<ReviewSignOff>::failure(notBuilt()); });
}

QFuture<Outcome<qint64>> addReviewNote(Workspace &, qint64, const QString &, const QString &)
{
    return QtConcurrent::run([] { return Outcome<qint64>::failure(notBuilt()); });
}

} // namespace triage
