#pragma once

// The fixture of the upstream client and simulator tests: the simulator process on a
// SQLite ticket store holding a found ticket (17), a duplicated key (21, 22) and a big
// number payload (30), its control API, and a client configured for it.
#include "SimTestUtil.h"

#include "UpstreamClient.h"

#include <QTcpServer>

#include <memory>

namespace triage::test {

inline const QString kFound = QStringLiteral("ticket:create:acme:found-1");
inline const QString kNone = QStringLiteral("ticket:create:acme:none-1");
inline const QString kDup = QStringLiteral("ticket:create:acme:dup-1");
inline const QString kBig = QStringLiteral("ticket:create:acme:big-1");
inline const QString kFoundPayload = QStringLiteral("{\"ticket_id\":17,\"queue\":\"network\"}");
inline const QString kBigPayload = QStringLiteral("{\"ticket_id\":30,\"amount\":12345678901234567890,\"ratio\":1.10}");

inline UpstreamQuery q(const QString &key, const QString &ticketId = {})
{
    UpstreamQuery query;
    query.idemKey = key;
    query.bizType = QStringLiteral("ticket_create");
    query.tenant = QStringLiteral("acme");
    query.ticketId = ticketId;
    return query;
}

/// A loopback port nobody listens on.
inline quint16 closedPort()
{
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    const quint16 p = s.serverPort();
    s.close();
    return p;
}

/// Base of the test classes that share one simulator for the whole test case.
class SimFixtureTest : public QObject {
protected:
    /// Starts the simulator (initTestCase()); fails the calling test function on error.
    void startFixture()
    {
        m_db = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
        QVERIFY(m_db->available());
        QCOMPARE(createSchemaWithoutBackstop(*m_db), QString());
        QCOMPARE(insertTicketRow(*m_db, 17, kFound, kFoundPayload), QString());
        QCOMPARE(insertTicketRow(*m_db, 21, kDup, QStringLiteral("{\"ticket_id\":21}")), QString());
        QCOMPARE(insertTicketRow(*m_db, 22, kDup, QStringLiteral("{\"ticket_id\":22}")), QString());
        QCOMPARE(insertTicketRow(*m_db, 30, kBig, kBigPayload), QString());
        QString error;
        QVERIFY2(m_sim.start(m_db->url(), &error), qPrintable(error));
        QVERIFY(m_sim.port() > 0);
        QCOMPARE(m_sim.baseUrl(), QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_sim.port())));
        m_base = m_sim.baseUrl();
        m_ctl = std::make_unique<SimControl>(m_base);
        m_client = std::make_unique<UpstreamClient>(QMap<QString, UpstreamConfig>{{QStringLiteral("ticket_create"), listConfig(m_base)}});
    }

    /// Stops the client and the simulator (cleanupTestCase()).
    void stopFixture()
    {
        m_client.reset();
        m_sim.stop();
        QVERIFY(!m_sim.isRunning());
    }

    std::unique_ptr<TestDatabase> m_db;
    UpstreamSimulatorProcess m_sim;
    std::unique_ptr<SimControl> m_ctl;
    std::unique_ptr<UpstreamClient> m_client;
    QUrl m_base;
};

} // namespace triage::test
