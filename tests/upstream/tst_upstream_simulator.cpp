// The upstream simulator itself: request log and statistics, fault validation, the
// idempotent cancel endpoint, commit-then-drop faults and process start errors.
#include "SimFixture.h"

#include <QNetworkAccessManager>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestUpstreamSimulator : public SimFixtureTest {
    Q_OBJECT
private slots:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { stopFixture(); }
    void init() { m_ctl->reset(); } // faults, request log, side effects, peak

    void simRequestLogAndStats();
    void simFaultValidation();
    void simCancelIdempotent();
    void simCommitThenDropWithIdempotency();
    void simCommitThenDropWithoutIdempotency();
    void simProcessErrors();
};

void TestUpstreamSimulator::simRequestLogAndStats()
{
    QCOMPARE(m_ctl->stats()[QStringLiteral("requests")].toInt(), 0);
    m_client->query(q(kFound)).waitForFinished();
    m_client->query(byIdConfig(m_base), q(kFound, QStringLiteral("17"))).waitForFinished();
    const QJsonArray reqs = m_ctl->requests();
    QCOMPARE(reqs.size(), 2);
    QCOMPARE(reqs.at(0)[QStringLiteral("seq")].toInt() + 1, reqs.at(1)[QStringLiteral("seq")].toInt());
    QCOMPARE(reqs.at(1)[QStringLiteral("path")].toString(), QStringLiteral("/tickets/17"));
    QVERIFY(reqs.at(1)[QStringLiteral("time")].toString().endsWith(QLatin1Char('Z')));
    QVERIFY(reqs.at(1)[QStringLiteral("fault")].isNull());
    const QJsonObject stats = m_ctl->stats();
    QCOMPARE(stats[QStringLiteral("requests")].toInt(), 2);
    QCOMPARE(stats[QStringLiteral("peak_in_flight")].toInt(), 1);
    QCOMPARE(stats[QStringLiteral("in_flight")].toInt(), 0);
    m_ctl->reset();
    QCOMPARE(m_ctl->requests().size(), 0);
}

void TestUpstreamSimulator::simFaultValidation()
{
    int status = 0;
    m_ctl->json("POST", QStringLiteral("/_sim/faults"), "{\"route\":\"/tickets\",\"fault\":\"boom\"}", &status);
    QCOMPARE(status, 400);
    m_ctl->json("POST", QStringLiteral("/_sim/faults"), "{\"route\":\"/tickets\",\"fault\":\"delay\"}", &status);
    QCOMPARE(status, 400); // delay needs delay_ms
    m_ctl->json("POST", QStringLiteral("/_sim/faults"), "not json", &status);
    QCOMPARE(status, 400);
    // count: the fault applies to that many requests, then the route is healthy again.
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("http_500"), 0, 2) > 0);
    QCOMPARE(m_client->query(q(kFound)).result().kind, UnusableKind::Http5xx);
    QCOMPARE(m_client->query(q(kFound)).result().kind, UnusableKind::Http5xx);
    QCOMPARE(m_client->query(q(kFound)).result().classification, UpstreamClass::Found);
    // Routes match by path segment; other routes are untouched. DELETE clears.
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets/{id}"), QStringLiteral("http_403")) > 0);
    QCOMPARE(m_client->query(q(kFound)).result().classification, UpstreamClass::Found);
    QCOMPARE(m_client->query(byIdConfig(m_base), q(kFound, QStringLiteral("17"))).result().kind, UnusableKind::Http403);
    m_ctl->clearFaults();
    QCOMPARE(m_client->query(byIdConfig(m_base), q(kFound, QStringLiteral("17"))).result().classification, UpstreamClass::Found);
}

namespace {
/// POSTs a cancel with an idempotency key through a plain QNAM; returns status and body.
QPair<int, QByteArray> postCancel(QNetworkAccessManager &nam, const QUrl &base, qint64 id, const QByteArray &key)
{
    QNetworkRequest req(base.resolved(QUrl(QStringLiteral("/tickets/%1/cancel").arg(id))));
    if (!key.isEmpty())
        req.setRawHeader("X-Idempotency-Key", key);
    req.setTransferTimeout(10000);
    QNetworkReply *reply = nam.post(req, QByteArray());
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        done.wait(15000);
    const QPair<int, QByteArray> out{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    reply->deleteLater();
    return out;
}
} // namespace

void TestUpstreamSimulator::simCancelIdempotent()
{
    QCOMPARE(insertTicketRow(*m_db, 40, QStringLiteral("ticket:create:acme:cancel-1"), QStringLiteral("{}")), QString());
    QNetworkAccessManager nam;
    const auto first = postCancel(nam, m_base, 40, "comp:cancel:40");
    QCOMPARE(first.first, 200);
    const QJsonObject body = QJsonDocument::fromJson(first.second).object();
    QCOMPARE(body[QStringLiteral("previous_status")].toString(), QStringLiteral("OPEN"));
    QCOMPARE(body[QStringLiteral("ticket")][QStringLiteral("status")].toString(), QStringLiteral("CANCELLED"));
    const auto again = postCancel(nam, m_base, 40, "comp:cancel:40");
    QCOMPARE(again.first, 200);
    QCOMPARE(again.second, first.second); // the stored reply, byte for byte
    QCOMPARE(m_ctl->stats()[QStringLiteral("side_effects")][QStringLiteral("40")].toInt(), 1);
    // The same key for another ticket is refused; no key acts every time.
    QCOMPARE(postCancel(nam, m_base, 17, "comp:cancel:40").first, 422);
    QCOMPARE(postCancel(nam, m_base, 40, {}).first, 200);
    QCOMPARE(m_ctl->stats()[QStringLiteral("side_effects")][QStringLiteral("40")].toInt(), 2);
    QCOMPARE(postCancel(nam, m_base, 999, "comp:cancel:999").first, 404);
    QCOMPARE(m_db->adminQueryColumn(QStringLiteral("SELECT status FROM ticket WHERE id = 40")), QStringList{QStringLiteral("CANCELLED")});
}

void TestUpstreamSimulator::simCommitThenDropWithIdempotency()
{
    QCOMPARE(insertTicketRow(*m_db, 41, QStringLiteral("ticket:create:acme:cancel-2"), QStringLiteral("{}")), QString());
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets/{id}/cancel"), QStringLiteral("commit_then_drop"), 0, 1) > 0);
    QNetworkAccessManager nam;
    // The first attempt commits and loses its answer; Qt re-sends the POST by itself
    // (docs/QT-PITFALLS.md), and the key turns the re-send into a replay.
    const auto r = postCancel(nam, m_base, 41, "comp:cancel:41");
    const int hits = int(m_ctl->requests().size());
    qInfo("commit_then_drop: %d attempt(s) reached the simulator, final status %d", hits, r.first);
    QVERIFY(hits >= 2);
    QCOMPARE(r.first, 200);
    QCOMPARE(m_ctl->stats()[QStringLiteral("side_effects")][QStringLiteral("41")].toInt(), 1);
}

void TestUpstreamSimulator::simCommitThenDropWithoutIdempotency()
{
    UpstreamSimulatorProcess plain;
    QString error;
    QVERIFY2(plain.start(m_db->url(), &error, {QStringLiteral("--no-idempotency")}), qPrintable(error));
    SimControl ctl(plain.baseUrl());
    QCOMPARE(ctl.stats()[QStringLiteral("idempotency")].toBool(), false);
    QCOMPARE(insertTicketRow(*m_db, 42, QStringLiteral("ticket:create:acme:cancel-3"), QStringLiteral("{}")), QString());
    QVERIFY(ctl.fault(QStringLiteral("/tickets/{id}/cancel"), QStringLiteral("commit_then_drop"), 0, 1) > 0);
    QNetworkAccessManager nam;
    const auto r = postCancel(nam, plain.baseUrl(), 42, "comp:cancel:42");
    QCOMPARE(r.first, 200);
    // Without idempotency, Qt's silent re-send is a second side effect.
    QCOMPARE(ctl.stats()[QStringLiteral("side_effects")][QStringLiteral("42")].toInt(), 2);
    plain.stop();
    QVERIFY(!plain.isRunning());
    QCOMPARE(plain.port(), quint16(0));
}

void TestUpstreamSimulator::simProcessErrors()
{
    UpstreamSimulatorProcess p;
    QString error;
    QVERIFY(!p.start(QStringLiteral("sqlite://relative/path.db"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("upstream simulator: exited (code 1) before listening: triage-upstream-sim: --ticket-db:")),
             qPrintable(error));
    QVERIFY(!p.isRunning());
    QVERIFY(!UpstreamSimulatorProcess::locateBinary().isEmpty());
}

QTEST_GUILESS_MAIN(TestUpstreamSimulator)
#include "tst_upstream_simulator.moc"
