// triage-reconcile-bench: one reconcile pass (DESIGN.md §8 "The run") over --keys stale
// PROCESSING records (default 10,000; half of them with a ticket, so half are SUCCESS by
// compare-and-set and half wait for a second NOT_FOUND) against the upstream simulator
// answering every query after --latency-ms (default 50). Prints the queries/s the run achieved
// against the upstream's limit (in-flight limit ÷ latency; goal ≥ 90 %), the most requests in
// flight (the run's and the simulator's own count; never above the limit), and the run's
// compare-and-sets per second against markRecords() (the console's bulk mark path) on as many
// other records in the same process and database. Its own database (--backend, default
// postgresql), dropped at the end.
#include "MarkTestUtil.h"
#include "SimTestUtil.h"

#include "KeyDetail.h"
#include "Mark.h"
#include "Reconcile.h"
#include "UpstreamClient.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>

using namespace triage;
using namespace triage::test;

namespace {

QString key(const QString &prefix, int i)
{
    return QStringLiteral("ticket:create:acme:%1-%2").arg(prefix).arg(i);
}

/// Inserts `n` stale PROCESSING records `prefix`-0.. (every other one with a ticket whose id
/// starts at `firstTicket`), 500 rows a statement. Returns the admin error text.
QString fill(const TestDatabase &db, const QString &prefix, int n, qint64 firstTicket)
{
    const QString t = serverNowMinus(db.backend(), 3600);
    const QString exp = serverNowMinus(db.backend(), -7 * 86400);
    for (int from = 0; from < n; from += 500) {
        QStringList records, tickets;
        for (int i = from; i < std::min(n, from + 500); ++i) {
            records << QStringLiteral("('%1', 'ticket_create', 0, %2, %2, %3)").arg(key(prefix, i), t, exp);
            if (i % 2 == 0)
                tickets << QStringLiteral("(%1, '%2', 'acme', 'bench', 'OPEN', '{\"ticket_id\":%1}', %3, %3)")
                               .arg(firstTicket + i)
                               .arg(key(prefix, i), t);
        }
        QString e = db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                                "expire_at) VALUES ")
                                 + records.join(QLatin1Char(',')));
        if (e.isEmpty() && !tickets.isEmpty())
            e = db.adminExec(QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload, created_at, updated_at) "
                                            "VALUES ")
                             + tickets.join(QLatin1Char(',')));
        if (!e.isEmpty())
            return e;
    }
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // The simulator this build made (the bench is not installed beside it).
    if (!qEnvironmentVariableIsSet("TRIAGE_UPSTREAM_SIM"))
        qputenv("TRIAGE_UPSTREAM_SIM", QByteArrayLiteral(TRIAGE_UPSTREAM_SIM_PATH));
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("One reconcile pass against the upstream simulator (DESIGN.md §8)."));
    p.addHelpOption();
    p.addOption({QStringLiteral("keys"), QStringLiteral("Stale records (default 10000)."), QStringLiteral("N"), QStringLiteral("10000")});
    p.addOption({QStringLiteral("latency-ms"), QStringLiteral("The simulator's answer delay (default 50)."), QStringLiteral("MS"),
                 QStringLiteral("50")});
    p.addOption({QStringLiteral("backend"), QStringLiteral("sqlite, postgresql or mysql (default postgresql)."), QStringLiteral("B"),
                 QStringLiteral("postgresql")});
    p.process(app);
    const int n = p.value(QStringLiteral("keys")).toInt();
    const int latency = p.value(QStringLiteral("latency-ms")).toInt();
    TestDatabase db(p.value(QStringLiteral("backend")));
    if (!db.available()) {
        std::fprintf(stderr, "triage-reconcile-bench: %s\n", qPrintable(db.skipReason()));
        return 1;
    }
    auto check = [](const QString &e) {
        if (!e.isEmpty()) {
            std::fprintf(stderr, "triage-reconcile-bench: %s\n", qPrintable(e));
            std::exit(1);
        }
    };
    check(createSchemaWithoutBackstop(db));
    check(fill(db, QStringLiteral("rc"), n, 1));
    UpstreamSimulatorProcess sim;
    QString error;
    if (!sim.start(db.url(), &error))
        check(error);
    SimControl ctl(sim.baseUrl());
    if (ctl.fault(QStringLiteral("/tickets"), QStringLiteral("delay"), latency) <= 0)
        check(QStringLiteral("the simulator refused the delay fault"));
    WorkspaceConfig c = db.config();
    c.upstreams = {{QStringLiteral("ticket_create"), listConfig(sim.baseUrl(), 10000)}};
    Workspace ws(c);
    UpstreamClient client(c.upstreams);
    ReconcileOptions o;
    o.concurrency = UpstreamClient::kMaxPerHost;
    o.breakerAfter = 0;

    QElapsedTimer wall;
    wall.start();
    const ReconcileResult r = runReconcile(ws, client, o);
    const qint64 wallMs = wall.elapsed();
    if (r.kind != ReconcileResult::Kind::Finished)
        check(r.message);
    const ReconcileSummary &s = r.summary;
    const double limit = o.concurrency * 1000.0 / latency;
    const double qps = s.queried * 1000.0 / std::max<qint64>(1, s.upstreamWallMs);
    const int simPeak = ctl.stats().value(QStringLiteral("peak_in_flight")).toInt();

    // The bulk mark path on as many other records, same process and database.
    check(fill(db, QStringLiteral("bulk"), n, 1000000));
    QVector<QFuture<KeyDetail>> loading;
    for (int i = 0; i < n; i += 2)
        loading << loadKeyDetail(ws, key(QStringLiteral("bulk"), i));
    QVector<MarkRequest> marks;
    for (auto &f : loading) {
        const KeyDetail d = f.result();
        MarkRequest m;
        m.idemKey = d.idemKey;
        m.toStatus = Success;
        m.reason = QStringLiteral("bench: the bulk mark path");
        m.snapshot = d.tickets.value(0).payload;
        m.snapshotSource = QStringLiteral("ticket:%1").arg(d.tickets.value(0).id.text());
        m.expect = expectedStateOf(*d.record);
        m.operatorName = QStringLiteral("bench");
        marks << m;
    }
    QElapsedTimer bulk;
    bulk.start();
    const QVector<Outcome<MarkResult>> done = markRecords(ws, marks).result();
    const qint64 bulkMs = bulk.elapsed();
    int applied = 0;
    for (const auto &d : done)
        applied += d.ok() && d->kind == MarkResult::Kind::Applied;

    std::printf("reconcile over %d stale keys (%s), simulator latency %d ms, %d in flight\n", n, qPrintable(db.backend()), latency,
                o.concurrency);
    std::printf("  run: %lld ms wall; %d examined, %d SUCCESS, %d waiting, %d escalated, %d errors\n", qint64(wallMs), s.examined,
                s.appliedSuccess, s.waiting, s.escalated, s.errors);
    std::printf("  upstream: %d queries in %lld ms = %.1f q/s; limit %d / %d ms = %.1f q/s; achieved %.1f %% (goal >= 90 %%)\n",
                s.queried, qint64(s.upstreamWallMs), qps, o.concurrency, latency, limit, 100.0 * qps / limit);
    std::printf("  in flight: at most %d (run), %d (simulator's count); limit %d\n", s.maxInFlight, simPeak, o.concurrency);
    std::printf("  compare-and-sets: reconcile %d in %lld ms = %.1f/s; bulk mark path %d in %lld ms = %.1f/s; ratio %.2f\n",
                s.appliedSuccess, qint64(s.casWallMs), s.appliedSuccess * 1000.0 / std::max<qint64>(1, s.casWallMs), applied,
                qint64(bulkMs), applied * 1000.0 / std::max<qint64>(1, bulkMs),
                (s.appliedSuccess * 1000.0 / std::max<qint64>(1, s.casWallMs)) / std::max(1e-9, applied * 1000.0 / std::max<qint64>(1, bulkMs)));
    sim.stop();
    return 0;
}
