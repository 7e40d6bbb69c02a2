// triage-bench: the incident window (DESIGN.md §7) against the same per-store statements
// run raw in the same process: a 30-minute window's first 500 events, and its summary.
#include "BenchUtil.h"

#include "Window.h"
#include "WindowSummary.h"
#include "Workspace.h"

#include <QDateTime>

#include <algorithm>
#include <tuple>

namespace triage::bench {

QVector<Figure> windowFigures(Workspace &ws, QSqlDatabase &raw, int reps)
{
    // The window's streams need their (time, id) indexes; a bench database filled before
    // they existed gets them here (its own fixture, not an agents' table).
    for (const char *sql : {"CREATE INDEX IF NOT EXISTS idx_idempotency_record_created ON idempotency_record (created_at, id)",
                            "CREATE INDEX IF NOT EXISTS idx_idempotency_record_updated ON idempotency_record (updated_at, id)",
                            "CREATE INDEX IF NOT EXISTS idx_intent_log_created ON intent_log (created_at, id)",
                            "CREATE INDEX IF NOT EXISTS idx_triage_compensation_created ON triage_compensation (created_at, id)",
                            "CREATE INDEX IF NOT EXISTS idx_triage_compensation_attempt_at ON triage_compensation_attempt (at, id)"})
        rawExec(raw, QString::fromLatin1(sql));
    rawExec(raw, QStringLiteral("ANALYZE"));
    // A 30-minute window ending 10 minutes before the newest record (at most 10 minutes ago):
    // older than the watermark, so every event is final, and inside the data of a database
    // kept from an earlier run (--keep), whose rows end where that run's clock was.
    qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    if (raw.driverName() == QLatin1String("QPSQL")) {
        auto newest = rawExec(raw, QStringLiteral("SELECT (EXTRACT(EPOCH FROM max(created_at)) * 1000)::bigint FROM idempotency_record"));
        if (newest.next() && !newest.value(0).isNull())
            nowMs = std::min(nowMs, newest.value(0).toLongLong());
    }
    WindowQuery q;
    q.from = (nowMs - 40 * 60 * 1000) * 1000;
    q.to = (nowMs - 10 * 60 * 1000) * 1000;
    const QString from = formatUtcMicros(q.from), to = formatUtcMicros(q.to);
    auto in = [&](const QString &col) { return QStringLiteral("%1 >= '%2' AND %1 < '%3'").arg(col, from, to); };
    // Raw: every statement one after another on one connection (the figure's raw ms), and
    // the anchor: the slowest database's statements alone, what the console's critical
    // path would be, since it runs each database's statements on its own worker at once.
    auto rawAnchors = [&](Figure &f, const QVector<QStringList> &perStore) {
        auto run = [&](const QStringList &statements) {
            for (const QString &sql : statements) {
                auto r = rawExec(raw, sql);
                drain(r);
            }
        };
        f.rawMs = medianMs(reps, [&] {
            for (const QStringList &statements : perStore)
                run(statements);
        });
        f.anchorName = QStringLiteral("raw, slowest database alone");
        f.anchorMs = 0;
        for (const QStringList &statements : perStore)
            f.anchorMs = std::max(f.anchorMs, medianMs(reps, [&] { run(statements); }));
    };
    QVector<Figure> figures;
    {
        Figure f;
        f.name = QStringLiteral("window: first 500 events of 30 min");
        int events = 0;
        f.consoleMs = medianMs(reps, [&] {
            const auto page = readWindowPage(ws, q, WindowCursor{}, 500).result();
            if (!page.ok())
                die(page.error->message);
            events = int(page->events.size());
        });
        // The raw anchor: each stream's first 500 rows in (time, id) order, the same columns,
        // per database the console reads it from (records and audit; intents and
        // compensations; tickets).
        const QVector<QStringList> raws{
            {QStringLiteral("SELECT id, idem_key, biz_type, status, created_at FROM idempotency_record WHERE %1 ORDER BY created_at, id LIMIT 500").arg(in(QStringLiteral("created_at"))),
             QStringLiteral("SELECT id, idem_key, biz_type, status, updated_at FROM idempotency_record WHERE %1 AND updated_at <> created_at ORDER BY updated_at, id LIMIT 500").arg(in(QStringLiteral("updated_at"))),
             QStringLiteral("SELECT id, idem_key, outcome, operator, action, at FROM triage_audit WHERE %1 ORDER BY at, id LIMIT 500").arg(in(QStringLiteral("at")))},
            {QStringLiteral("SELECT id, idem_key, status, actor, action, created_at FROM intent_log WHERE %1 ORDER BY created_at, id LIMIT 500").arg(in(QStringLiteral("created_at"))),
             QStringLiteral("SELECT id, source_key, status, operator, created_at FROM triage_compensation WHERE %1 ORDER BY created_at, id LIMIT 500").arg(in(QStringLiteral("created_at"))),
             QStringLiteral("SELECT a.id, c.source_key, a.classification, a.at FROM triage_compensation_attempt a JOIN triage_compensation c ON c.comp_key = a.comp_key WHERE %1 ORDER BY a.at, a.id LIMIT 500").arg(in(QStringLiteral("a.at")))},
            {QStringLiteral("SELECT id, idem_key, status, title, created_at FROM ticket WHERE %1 ORDER BY created_at, id LIMIT 500").arg(in(QStringLiteral("created_at")))}};
        rawAnchors(f, raws);
        f.note = QStringLiteral("%1 events; raw: the 7 per-stream statements one after another, no merge").arg(events);
        figures << f;
    }
    {
        Figure f;
        f.name = QStringLiteral("window: summary of 30 min");
        f.consoleMs = medianMs(reps, [&] {
            const auto s = summarizeWindow(ws, q).result();
            if (!s.ok())
                die(s.error->message);
        });
        // The raw aggregates, per database as the console runs them: per stream its count and
        // distinct keys and its per-minute counts, then the summary's other figures (keys
        // with an UNKNOWN attempt, records still PROCESSING, top biz_types, keys with 2+
        // tickets, top tenants, applied marks).
        QVector<QStringList> aggregates(3);
        for (const auto &[table, col, store] : {std::tuple{"idempotency_record", "created_at", 0}, std::tuple{"idempotency_record", "updated_at", 0},
                                                std::tuple{"triage_audit", "at", 0}, std::tuple{"intent_log", "created_at", 1},
                                                std::tuple{"ticket", "created_at", 2}}) {
            const QString t = QString::fromLatin1(table), c = QString::fromLatin1(col);
            aggregates[store] << QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT idem_key) FROM %1 WHERE %2").arg(t, in(c))
                              << QStringLiteral("SELECT date_trunc('minute', %2), COUNT(*) FROM %1 WHERE %3 GROUP BY 1 ORDER BY 1").arg(t, c, in(c));
        }
        aggregates[1] << QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT source_key) FROM triage_compensation WHERE %1").arg(in(QStringLiteral("created_at")))
                      << QStringLiteral("SELECT date_trunc('minute', created_at), COUNT(*) FROM triage_compensation WHERE %1 GROUP BY 1 ORDER BY 1").arg(in(QStringLiteral("created_at")))
                      << QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT c.source_key) FROM triage_compensation_attempt a JOIN triage_compensation c ON c.comp_key = a.comp_key WHERE %1").arg(in(QStringLiteral("a.at")))
                      << QStringLiteral("SELECT date_trunc('minute', a.at), COUNT(*) FROM triage_compensation_attempt a JOIN triage_compensation c ON c.comp_key = a.comp_key WHERE %1 GROUP BY 1 ORDER BY 1").arg(in(QStringLiteral("a.at")))
                      << QStringLiteral("SELECT COUNT(DISTINCT idem_key) FROM intent_log WHERE %1 AND status = 'UNKNOWN'").arg(in(QStringLiteral("created_at")));
        aggregates[0] << QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE %1 AND status = 0").arg(in(QStringLiteral("created_at")))
                      << QStringLiteral("SELECT biz_type, COUNT(*) FROM idempotency_record WHERE %1 GROUP BY biz_type ORDER BY 2 DESC, 1 LIMIT 5").arg(in(QStringLiteral("created_at")));
        aggregates[2] << QStringLiteral("SELECT COUNT(*) FROM (SELECT idem_key FROM ticket WHERE %1 AND idem_key IS NOT NULL GROUP BY idem_key HAVING COUNT(*) > 1) g").arg(in(QStringLiteral("created_at")))
                      << QStringLiteral("SELECT tenant_id, COUNT(*) FROM ticket WHERE %1 GROUP BY tenant_id ORDER BY 2 DESC, 1 LIMIT 5").arg(in(QStringLiteral("created_at")));
        aggregates[0] << QStringLiteral("SELECT operator || ' ' || COALESCE(to_state, '-'), COUNT(*) FROM triage_audit WHERE %1 AND action IN ('mark_success', 'mark_failed') AND outcome = 'applied' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5").arg(in(QStringLiteral("at")));
        rawAnchors(f, aggregates);
        f.note = QStringLiteral("raw: the same aggregates one after another (counts, distinct keys, per-minute counts of the 7 streams, and the 6 others)");
        figures << f;
    }
    return figures;
}

} // namespace triage::bench
