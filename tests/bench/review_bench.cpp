// triage-review-bench: the daily review (DESIGN.md §8 "The daily review") over --records
// idempotency records (default 200,000) and --escalations escalations (default 50,000, spread
// over the last 30 days, two thirds resolved, amounts in three currencies). Prints the time of
// readReview() — the first (recording breaches and writing 30 days of trend rows) — then the
// median of --reps runs of: the Review view's first paint (readReview() with the view's page
// of --page open items: the figures and one page), the day's report (readReview() of every
// open item; then, apart, reviewJson() and its fingerprint), and the raw aggregate statements the
// review needs (open as of now by reason and biz_type, opened and resolved today, breaches, the
// open rows' amounts), with the ratios, run in the same process on the same worker. Its own
// database (--backend, default postgresql), dropped at the end. Not part of ctest.
#include "BackendTestUtil.h"
#include "ServerTime.h"

#include "Review.h"
#include "ReviewExport.h"
#include "Workspace.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSqlQuery>

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace triage;
using namespace triage::test;

namespace {

QString fillRecords(const TestDatabase &db, int n)
{
    const QString t = serverNowMinus(db.backend(), 3600);
    const QString exp = serverNowMinus(db.backend(), -7 * 86400);
    for (int from = 0; from < n; from += 1000) {
        QStringList rows;
        for (int i = from; i < std::min(n, from + 1000); ++i)
            rows << QStringLiteral("('ticket:create:acme:rb-%1', 'ticket_create', 1, %2, %2, %3)").arg(i).arg(t, exp);
        if (const QString e = db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, "
                                                          "updated_at, expire_at) VALUES ")
                                           + rows.join(QLatin1Char(',')));
            !e.isEmpty())
            return e;
    }
    return {};
}

QString fillEscalations(const TestDatabase &db, int n)
{
    static const char *reasons[] = {"DUPLICATE", "POLICY", "AMOUNT_MISMATCH", "UPSTREAM_UNUSABLE", "CONTRADICTION"};
    static const char *bizTypes[] = {"ticket_create", "refund", "payment"};
    static const char *currencies[] = {"EUR", "USD", "JPY"};
    for (int from = 0; from < n; from += 1000) {
        QStringList rows;
        for (int i = from; i < std::min(n, from + 1000); ++i) {
            const qint64 age = (qint64(i) * 7919) % (30 * 86400); // spread over 30 days
            const bool resolved = i % 3 != 0;
            const QString first = serverNowMinus(db.backend(), age);
            rows << QStringLiteral("('ticket:create:acme:eb-%1', '%2', '', '%3', '{}', '%4.%5', '%6', %7, %7, %8, %9, %10, %11, %12)")
                        .arg(i)
                        .arg(QLatin1String(bizTypes[i % 3]), QLatin1String(reasons[i % 5]))
                        .arg(i % 1000)
                        .arg(i % 100, 2, 10, QLatin1Char('0'))
                        .arg(QLatin1String(currencies[i % 3]), first, serverNowMinus(db.backend(), age - 86400),
                             resolved ? QStringLiteral("'bench'") : QStringLiteral("NULL"),
                             resolved ? serverNowMinus(db.backend(), age / 2) : QStringLiteral("NULL"),
                             resolved ? QStringLiteral("'bench'") : QStringLiteral("NULL"))
                        .arg(resolved ? QStringLiteral("NULL") : QStringLiteral("1"));
        }
        if (const QString e = db.adminExec(QStringLiteral("INSERT INTO triage_escalation (idem_key, biz_type, tenant, reason, facts, amount, "
                                                          "currency, first_escalated_at, last_seen_at, sla_due_at, resolution, "
                                                          "resolved_at, resolved_by, open_slot) VALUES ")
                                           + rows.join(QLatin1Char(',')));
            !e.isEmpty())
            return e;
    }
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("The daily review's read against the raw aggregates (DESIGN.md §8)."));
    p.addHelpOption();
    p.addOption({QStringLiteral("records"), QStringLiteral("Idempotency records (default 200000)."), QStringLiteral("N"), QStringLiteral("200000")});
    p.addOption({QStringLiteral("escalations"), QStringLiteral("Escalations (default 50000)."), QStringLiteral("N"), QStringLiteral("50000")});
    p.addOption({QStringLiteral("backend"), QStringLiteral("sqlite, postgresql or mysql (default postgresql)."), QStringLiteral("B"),
                 QStringLiteral("postgresql")});
    p.addOption({QStringLiteral("reps"), QStringLiteral("Runs per measurement, the median printed (default 5)."), QStringLiteral("N"),
                 QStringLiteral("5")});
    p.addOption({QStringLiteral("page"), QStringLiteral("Open items of the first paint (default 200, the Review view's page)."),
                 QStringLiteral("N"), QStringLiteral("200")});
    p.process(app);
    const int records = p.value(QStringLiteral("records")).toInt();
    const int escalations = p.value(QStringLiteral("escalations")).toInt();
    TestDatabase db(p.value(QStringLiteral("backend")));
    if (!db.available()) {
        std::fprintf(stderr, "triage-review-bench: %s\n", qPrintable(db.skipReason()));
        return 1;
    }
    auto check = [](const QString &e) {
        if (!e.isEmpty()) {
            std::fprintf(stderr, "triage-review-bench: %s\n", qPrintable(e));
            std::exit(1);
        }
    };
    Workspace ws(db.config());
    check(setUpSchema(ws));
    check(fillRecords(db, records));
    check(fillEscalations(db, escalations));

    const int reps = std::max(1, p.value(QStringLiteral("reps")).toInt());
    const int page = std::max(1, p.value(QStringLiteral("page")).toInt());
    QElapsedTimer clock;
    clock.start();
    const auto first = readReview(ws, std::nullopt, QStringLiteral("console")).result();
    const qint64 firstMs = clock.elapsed();
    check(first.ok() ? QString() : first.error->message);
    const QString from = formatUtcMicros(first->day.from.toMSecsSinceEpoch() * 1000);

    // The raw statements: what any review must read at least, as plain aggregates.
    auto raw = [&]() {
        const auto r = ws.worker(DbRole::Idempotency)
                           .run<int>([from](DbSession &s) {
                               const SqlDialect &d = s.dialect();
                               int rows = 0;
                               const QString since = d.timeParam(QStringLiteral(":from"));
                               const QStringList sql = {
                                   QStringLiteral("SELECT reason, biz_type, COUNT(*), COUNT(DISTINCT idem_key) FROM triage_escalation "
                                                  "WHERE open_slot = 1 GROUP BY reason, biz_type"),
                                   QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE first_escalated_at >= %1").arg(since),
                                   QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE resolved_at >= %1").arg(since),
                                   QStringLiteral("SELECT COUNT(*) FROM triage_review_breach WHERE due_at >= %1").arg(since),
                                   QStringLiteral("SELECT id, idem_key, amount, currency, first_escalated_at, sla_due_at FROM triage_escalation "
                                                  "WHERE open_slot = 1")};
                               for (const QString &q : sql) {
                                   SqlBuilder b;
                                   QString text = q;
                                   if (text.contains(QLatin1String(":from")))
                                       text.replace(QStringLiteral(":from"), b.bind(d.bindTime(parseUtcMicros(from).value_or(0))));
                                   QSqlQuery r = s.exec(text, b);
                                   while (r.next())
                                       ++rows;
                               }
                               return rows;
                           })
                           .result();
        check(r.ok() ? QString() : r.error->message);
        return *r;
    };
    ReviewSnapshot shown, report;
    qsizetype reportBytes = 0;
    auto firstPaint = [&]() {
        const auto r = readReview(ws, std::nullopt, QStringLiteral("console"), page).result();
        check(r.ok() ? QString() : r.error->message);
        shown = *r;
    };
    auto dayReport = [&]() {
        const auto r = readReview(ws, std::nullopt, QStringLiteral("report")).result();
        check(r.ok() ? QString() : r.error->message);
        report = *r;
    };
    auto render = [&]() {
        reportBytes = reviewJson(report).size();
        (void)reviewReportSha256(report);
    };
    QString mark;
    auto liveMark = [&]() { // the live Review tab's poll (DESIGN.md §9 "Live review")
        const auto r = reviewChangeMark(ws).result();
        check(r.ok() ? QString() : r.error->message);
        mark = *r;
    };
    auto median = [&](const std::function<void()> &fn) {
        QVector<double> ms;
        for (int i = 0; i < reps; ++i) {
            QElapsedTimer t;
            t.start();
            fn();
            ms << t.nsecsElapsed() / 1e6;
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    };
    int rawRows = 0;
    const double rawMs = std::max(0.01, median([&] { rawRows = raw(); }));
    const double paintMs = median(firstPaint);
    const double reportMs = median(dayReport);
    const double renderMs = median(render);
    const double markMs = median(liveMark);
    const double rawAgainMs = std::max(0.01, median([&] { rawRows = raw(); }));
    const double rawBest = std::min(rawMs, rawAgainMs);
    std::printf("review of %s (%s) over %d records, %d escalations (%s): %d open, %d groups, %lld trend rows read\n",
                qPrintable(report.day.day.toString(Qt::ISODate)), "UTC", records, escalations, qPrintable(db.backend()), report.totals.open,
                int(report.groups.size()), qint64(report.trend.size()));
    std::printf("  readReview() first: %lld ms (breaches + 30 days of trend rows written)\n", qint64(firstMs));
    std::printf("  medians of %d runs:\n", reps);
    std::printf("  first paint (aggregates + first %d of %d open items): %.1f ms, ratio %.2f\n", page, shown.totals.open, paintMs,
                paintMs / rawBest);
    std::printf("  day's report, read (every open item): %.1f ms, ratio %.2f\n", reportMs, reportMs / rawBest);
    std::printf("  day's report, rendered (reviewJson() %lld bytes + reviewReportSha256()): %.1f ms; read + rendered %.1f ms, ratio %.2f\n",
                qint64(reportBytes), renderMs, reportMs + renderMs, (reportMs + renderMs) / rawBest);
    std::printf("  live poll (reviewChangeMark(), a re-read only when it moves): %.1f ms, ratio %.2f\n", markMs, markMs / rawBest);
    std::printf("  raw aggregates (%d rows): %.1f ms before, %.1f ms after (ratios against the smaller)\n", rawRows, rawMs, rawAgainMs);
    check(shown.totals.open == report.totals.open && shown.groups.size() == report.groups.size()
              ? QString()
              : QStringLiteral("the first paint's totals differ from the report's"));
    return 0;
}
