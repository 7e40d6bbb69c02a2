// The demo's daily review (DESIGN.md §8 "The daily review"): what a reviewer would have left
// behind by today — breaches, trend rows, yesterday morning's sign-off of the day before.
#include "DemoReview.h"

#include "ReviewExport.h"
#include "ReviewRecord.h"
#include "ReviewSql.h"
#include "Workspace.h"

#include <QSqlQuery>

namespace triage {

Outcome<ReviewHistoryReport> seedReviewHistory(Workspace &workspace)
{
    return workspace.worker(DbRole::Idempotency)
        .run<ReviewHistoryReport>([](DbSession &s) {
            ReviewHistoryReport report;
            report.breaches = review_sql::recordBreaches(s, QStringLiteral("console"));
            report.trendRows = review_sql::writeTrendRows(s, QTimeZone::utc(), QStringLiteral("console"));
            QSqlQuery q = s.exec(QStringLiteral("SELECT %1").arg(s.dialect().nowText()));
            q.next();
            const UtcMicros now = parseUtcMicros(canonicalTimeText(q.value(0))).value_or(0);
            q.finish();
            const QDate day = reviewDayContaining(now, QTimeZone::utc()).addDays(-2);
            review_sql::ReviewReadOptions o;
            o.day = day;
            o.write = false;
            o.generatedBy = QStringLiteral("alice");
            o.slaHours = [](const QString &, const QMap<QString, QString> &) { return 24; };
            const ReviewSnapshot snap = review_sql::readSnapshot(s, o);
            const QString sha = reviewReportSha256(snap);
            const ReviewSignOff signedOff = review_sql::signOff(s, snap, sha, QStringLiteral("demo: reviewed every escalation"),
                                                                 QStringLiteral("alice"));
            // A morning review: signed at 09:00 UTC the day after.
            const SqlDialect &d = s.dialect();
            const UtcMicros morning = reviewDayWindow(day.addDays(1), QTimeZone::utc()).first + 9LL * 3600 * 1000000;
            SqlBuilder b;
            s.exec(QStringLiteral("UPDATE triage_review_signoff SET signed_at = %1 WHERE id = %2")
                       .arg(d.timeParam(b.bind(d.bindTime(morning))), b.bind(signedOff.id)),
                   b);
            report.signedDay = day;
            return report;
        }, DbWorker::Retry::Never)
        .result();
}

} // namespace triage
