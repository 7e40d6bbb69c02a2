// Bulk upstream queries against the simulator: 1,000 keys at concurrency 6 (the
// simulator's peak in flight is exactly 6), clocks that start only when a request is
// really sent, pause after K consecutive UNUSABLE (stop, resume, hook), cancel, and
// shutting the client down under load.
#include "SimTestUtil.h"

#include "UpstreamClient.h"

#include <QTest>

#include <atomic>

using namespace triage;
using namespace triage::test;

namespace {

QVector<UpstreamQuery> keys(int n, const QString &prefix = QStringLiteral("bulk"))
{
    QVector<UpstreamQuery> out;
    for (int i = 0; i < n; ++i) {
        UpstreamQuery q;
        q.idemKey = QStringLiteral("ticket:create:acme:%1-%2").arg(prefix).arg(i, 4, 10, QLatin1Char('0'));
        q.bizType = QStringLiteral("ticket_create");
        q.tenant = QStringLiteral("acme");
        out.append(q);
    }
    return out;
}

} // namespace

class TestUpstreamBulk : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void thousandKeysAtConcurrencySix();
    void concurrencyIsClampedToSix();
    void singleQueriesShareTheLimitAndClocksStartWhenSent();
    void pauseThenStop();
    void pauseThenResume();
    void pauseHookResumes();
    void cancelAbortsInFlight();
    void droppingTheRunCancelsIt();
    void destroyingTheClientCancelsRuns();

private:
    std::unique_ptr<TestDatabase> m_db;
    UpstreamSimulatorProcess m_sim;
    std::unique_ptr<SimControl> m_ctl;
    QUrl m_base;
};

void TestUpstreamBulk::initTestCase()
{
    m_db = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
    QVERIFY(m_db->available());
    QCOMPARE(createSchemaWithoutBackstop(*m_db), QString());
    // Keys 0, 10, 20, … 990 of "bulk" have one ticket each (100 tickets).
    QStringList rows;
    for (int i = 0; i < 1000; i += 10)
        rows.append(QStringLiteral("(%1, 'ticket:create:acme:bulk-%2', 'acme', 't', 'OPEN', '{\"n\":%1}')")
                        .arg(1000 + i)
                        .arg(i, 4, 10, QLatin1Char('0')));
    QCOMPARE(m_db->adminExec(QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload) VALUES ") + rows.join(QLatin1Char(','))),
             QString());
    QString error;
    QVERIFY2(m_sim.start(m_db->url(), &error), qPrintable(error));
    m_base = m_sim.baseUrl();
    m_ctl = std::make_unique<SimControl>(m_base);
}

void TestUpstreamBulk::cleanupTestCase()
{
    m_sim.stop();
}

void TestUpstreamBulk::init()
{
    m_ctl->reset();
}

void TestUpstreamBulk::thousandKeysAtConcurrencySix()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 50) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 2000)}});
    const QVector<UpstreamQuery> qs = keys(1000);
    UpstreamBulkOptions o;
    o.concurrency = 6;
    auto run = client.queryMany(qs, o);
    QCOMPARE(run->total(), 1000);
    QSignalSpy progress(run.get(), &UpstreamBulkRun::progress);
    QSignalSpy results(run.get(), &UpstreamBulkRun::resultReady);
    QSignalSpy finished(run.get(), &UpstreamBulkRun::finished);
    QVERIFY(progress.isValid() && results.isValid() && finished.isValid());
    run->report().waitForFinished();
    const UpstreamBulkReport r = run->report().result();
    qInfo("1000 keys, 50 ms each, concurrency 6: %lld ms wall time", r.wallMs);

    QCOMPARE(r.state, UpstreamBulkState::Finished);
    QCOMPARE(run->state(), UpstreamBulkState::Finished);
    QCOMPARE(r.results.size(), 1000);
    QCOMPARE(r.found, 100);
    QCOMPARE(r.notFound, 900);
    QCOMPARE(r.ambiguous, 0);
    QCOMPARE(r.unusable, 0);
    QCOMPARE(r.timedOut, 0);
    QCOMPARE(r.cancelled, 0);
    for (int i = 0; i < 1000; ++i) {
        const UpstreamEvidence &e = r.results.at(i);
        QCOMPARE(e.idemKey, qs.at(i).idemKey);
        QVERIFY(e.sent);
        QCOMPARE(e.classification, i % 10 == 0 ? UpstreamClass::Found : UpstreamClass::NotFound);
        // The simulator holds each answer 50 ms; timer granularity may shave a few ms.
        QVERIFY2(e.elapsedMs >= 35 && e.elapsedMs < 2000, qPrintable(QString::number(e.elapsedMs)));
    }
    QCOMPARE(results.count(), 1000);
    // (0, 1000) may be emitted before the spy connects (the run starts at once); then one per answer.
    QVERIFY2(progress.count() == 1000 || progress.count() == 1001, qPrintable(QString::number(progress.count())));
    QCOMPARE(progress.last().at(0).toInt(), 1000);
    QCOMPARE(finished.count(), 1);

    const QJsonObject stats = m_ctl->stats();
    QCOMPARE(stats[QStringLiteral("requests")].toInt(), 1000);
    QCOMPARE(stats[QStringLiteral("peak_in_flight")].toInt(), 6);
    QCOMPARE(stats[QStringLiteral("in_flight")].toInt(), 0);
}

void TestUpstreamBulk::concurrencyIsClampedToSix()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 50) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 2000)}});
    UpstreamBulkOptions o;
    o.concurrency = 50;
    auto run = client.queryMany(keys(60), o);
    const UpstreamBulkReport r = run->report().result();
    QCOMPARE(r.state, UpstreamBulkState::Finished);
    QCOMPARE(r.timedOut, 0);
    QCOMPARE(r.found + r.notFound, 60);
    QCOMPARE(m_ctl->stats()[QStringLiteral("peak_in_flight")].toInt(), UpstreamClient::kMaxPerHost);
}

void TestUpstreamBulk::singleQueriesShareTheLimitAndClocksStartWhenSent()
{
    // 18 queries at once, 200 ms each, with a 500 ms deadline: inside Qt's per-host queue
    // the third six would wait 400 ms before being sent and time out at 500. Here each
    // clock starts when its request leaves, so none does.
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 200) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 500)}});
    QList<QFuture<UpstreamEvidence>> futures;
    for (const UpstreamQuery &q : keys(18))
        futures.append(client.query(q));
    for (QFuture<UpstreamEvidence> &f : futures) {
        const UpstreamEvidence e = f.result();
        QVERIFY2(e.kind != UnusableKind::Timeout, qPrintable(e.message));
        QVERIFY2(e.elapsedMs >= 180 && e.elapsedMs < 500, qPrintable(QString::number(e.elapsedMs)));
        QCOMPARE(e.classification, e.idemKey.endsWith(QLatin1String("0")) ? UpstreamClass::Found : UpstreamClass::NotFound);
    }
    const QJsonObject stats = m_ctl->stats();
    QCOMPARE(stats[QStringLiteral("requests")].toInt(), 18);
    QCOMPARE(stats[QStringLiteral("peak_in_flight")].toInt(), 6);
}

void TestUpstreamBulk::pauseThenStop()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("http_503")) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base)}});
    UpstreamBulkOptions o;
    o.concurrency = 1;
    o.pauseAfterUnusable = 3;
    auto run = client.queryMany(keys(20), o);
    QSignalSpy paused(run.get(), &UpstreamBulkRun::paused);
    QVERIFY(paused.wait(5000));
    QCOMPARE(paused.count(), 1);
    const auto pause = paused.first().at(0).value<UpstreamBulkPause>();
    QCOMPARE(pause.consecutiveUnusable, 3);
    QCOMPARE(pause.done, 3);
    QCOMPARE(pause.total, 20);
    QCOMPARE(pause.last.kind, UnusableKind::Http5xx);
    QCOMPARE(run->state(), UpstreamBulkState::Paused);
    QTest::qWait(200);
    QVERIFY(!run->report().isFinished()); // a pause is not an end
    QCOMPARE(m_ctl->stats()[QStringLiteral("requests")].toInt(), 3);
    run->stop();
    const UpstreamBulkReport r = run->report().result();
    QCOMPARE(r.state, UpstreamBulkState::Stopped);
    QCOMPARE(r.unusable, 3);
    QCOMPARE(r.cancelled, 17);
    for (int i = 3; i < 20; ++i) {
        QVERIFY(!r.results.at(i).sent);
        QCOMPARE(r.results.at(i).kind, UnusableKind::Cancelled);
        QCOMPARE(r.results.at(i).message, QStringLiteral("not sent: the bulk query was stopped"));
        QCOMPARE(r.results.at(i).idemKey, keys(20).at(i).idemKey);
    }
    QCOMPARE(m_ctl->stats()[QStringLiteral("requests")].toInt(), 3);
}

void TestUpstreamBulk::pauseThenResume()
{
    // The upstream fails three times, then recovers; the operator resumes.
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("http_503"), 0, 3) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base)}});
    UpstreamBulkOptions o;
    o.concurrency = 1;
    o.pauseAfterUnusable = 3;
    auto run = client.queryMany(keys(20), o);
    QSignalSpy paused(run.get(), &UpstreamBulkRun::paused);
    QVERIFY(paused.wait(5000));
    QCOMPARE(run->state(), UpstreamBulkState::Paused);
    run->resume();
    const UpstreamBulkReport r = run->report().result();
    QCOMPARE(r.state, UpstreamBulkState::Finished);
    QCOMPARE(paused.count(), 1);
    QCOMPARE(r.unusable, 3);
    QCOMPARE(r.found, 1);     // bulk-0010 (bulk-0000 was among the failed three)
    QCOMPARE(r.notFound, 16);
    QCOMPARE(r.results.at(0).kind, UnusableKind::Http5xx);
    QCOMPARE(r.results.at(10).classification, UpstreamClass::Found);
}

void TestUpstreamBulk::pauseHookResumes()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("http_429")) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base)}});
    UpstreamBulkOptions o;
    o.concurrency = 1;
    o.pauseAfterUnusable = 3;
    std::atomic<int> calls{0};
    auto run = client.queryMany(keys(20), o, [&calls](const UpstreamBulkPause &p) {
        ++calls;
        return p.done < 12 ? UpstreamBulkDecision::Resume : UpstreamBulkDecision::Stop;
    });
    const UpstreamBulkReport r = run->report().result();
    // Pauses after 3, 6, 9 (resume) and 12 answers (stop).
    QCOMPARE(calls.load(), 4);
    QCOMPARE(r.state, UpstreamBulkState::Stopped);
    QCOMPARE(r.unusable, 12);
    QCOMPARE(r.cancelled, 8);
}

void TestUpstreamBulk::cancelAbortsInFlight()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 1000) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 5000)}});
    auto run = client.queryMany(keys(30));
    QTRY_COMPARE_WITH_TIMEOUT(m_ctl->stats()[QStringLiteral("in_flight")].toInt(), 6, 3000);
    QElapsedTimer t;
    t.start();
    run->cancel();
    const UpstreamBulkReport r = run->report().result();
    QVERIFY(t.elapsed() < 900);
    QCOMPARE(r.state, UpstreamBulkState::Cancelled);
    QCOMPARE(r.cancelled, 30);
    QCOMPARE(r.timedOut, 0);
    int sent = 0;
    for (const UpstreamEvidence &e : r.results) {
        QCOMPARE(e.kind, UnusableKind::Cancelled);
        sent += e.sent ? 1 : 0;
    }
    QCOMPARE(sent, 6); // the six in flight were aborted; the rest never left
}

void TestUpstreamBulk::droppingTheRunCancelsIt()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 1000) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 5000)}});
    auto run = client.queryMany(keys(30));
    QFuture<UpstreamBulkReport> report = run->report();
    QTRY_COMPARE_WITH_TIMEOUT(m_ctl->stats()[QStringLiteral("in_flight")].toInt(), 6, 3000);
    run.reset();
    report.waitForFinished();
    QCOMPARE(report.result().state, UpstreamBulkState::Cancelled);
    // Nothing more is sent.
    QTest::qWait(300);
    QCOMPARE(m_ctl->stats()[QStringLiteral("requests")].toInt(), 6);
}

void TestUpstreamBulk::destroyingTheClientCancelsRuns()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 1000) > 0);
    std::shared_ptr<UpstreamBulkRun> run;
    QFuture<UpstreamEvidence> single, unconfigured;
    {
        UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 5000)}});
        run = client.queryMany(keys(30));
        QTRY_COMPARE_WITH_TIMEOUT(m_ctl->stats()[QStringLiteral("in_flight")].toInt(), 6, 3000);
        single = client.query(keys(1, QStringLiteral("single")).first());
        UpstreamQuery other = keys(1, QStringLiteral("other")).first();
        other.bizType = QStringLiteral("refund_issue");
        unconfigured = client.query(other); // answered without a request
    }
    QVERIFY(run->report().isFinished());
    QCOMPARE(run->report().result().state, UpstreamBulkState::Cancelled);
    QCOMPARE(run->report().result().cancelled, 30);
    QVERIFY(single.isFinished());
    QCOMPARE(single.result().kind, UnusableKind::Cancelled);
    QVERIFY(unconfigured.isFinished());
    QCOMPARE(unconfigured.result().classification, UpstreamClass::NotConfigured);
    run.reset(); // deleted without its (gone) thread
}

QTEST_GUILESS_MAIN(TestUpstreamBulk)
#include "tst_upstream_bulk.moc"
