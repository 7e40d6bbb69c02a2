// The upstream client against the simulator: classification of every answer shape,
// timeouts, transport errors, tokens and cancellation; every backend's ticket store.
#include "SimFixture.h"

#include <QRegularExpression>
#include <QUrlQuery>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestUpstreamSim : public SimFixtureTest {
    Q_OBJECT
private slots:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { stopFixture(); }
    void init() { m_ctl->reset(); } // faults, request log, side effects, peak

    void foundByKey();
    void notFoundEmptyArray();
    void ambiguous();
    void foundById404Mode();
    void envelopeWithoutResultPathIsUnusable();
    void answerForAnotherKeyIsUnusable();
    void notFound404Json();
    void emptyArrayIn404ModeIsUnusable();
    void json404InEmptyModeIsUnusable();
    void timeoutIgnoresLateAnswer();
    void stallAfterHeadersIsTimeout();
    void connectionRefused();
    void dropIsConnectionReset();
    void httpErrors_data();
    void httpErrors();
    void htmlBody200();
    void html404IsUnusable();
    void truncated();
    void invalidJson();
    void bigIntegerWarning();
    void notConfigured();
    void tokenAndHeaders();
    void missingTokenVariable();
    void missingTicketIdPlaceholder();
    void cancelFutureAbortsRequest();
    void everyBackend_data();
    void everyBackend();
};

void TestUpstreamSim::foundByKey()
{
    const UpstreamEvidence e = m_client->query(q(kFound)).result();
    QCOMPARE(upstreamClassName(e.classification), QStringLiteral("FOUND"));
    QCOMPARE(e.kind, UnusableKind::None);
    QCOMPARE(e.message, QStringLiteral("FOUND: one object at \"tickets\" (HTTP 200 OK)"));
    QCOMPARE(e.httpStatus, std::optional<int>(200));
    QCOMPARE(e.contentType, QStringLiteral("application/json"));
    QVERIFY(e.sent);
    QCOMPARE(e.idemKey, kFound);
    QCOMPARE(e.bizType, QStringLiteral("ticket_create"));
    QCOMPARE(e.request.method, QByteArray("GET"));
    // Every reserved character of the key is percent-encoded in the query.
    QCOMPARE(e.request.url, QStringLiteral("http://127.0.0.1:%1/tickets?idem_key=ticket%3Acreate%3Aacme%3Afound-1").arg(m_sim.port()));
    QVERIFY(e.elapsedMs >= 0 && e.elapsedMs < 2000);
    QVERIFY(e.request.sentAt.endsWith(QLatin1Char('Z')));
    QCOMPARE(e.foundObjects.size(), 1);
    QVERIFY(e.foundObjectsExact);
    // The object is a byte-exact slice of the raw body.
    QCOMPARE(e.rawBody, QByteArray("{\"tickets\":[") + e.foundObjects.first().toUtf8() + "]}");
    QVERIFY2(e.foundObjects.first().startsWith(
                 QStringLiteral("{\"id\":17,\"idem_key\":\"ticket:create:acme:found-1\",\"tenant_id\":\"acme\","
                                "\"title\":\"VPN outage\",\"status\":\"OPEN\",\"payload\":%1,\"created_at\":\"")
                     .arg(kFoundPayload)),
             qPrintable(e.foundObjects.first()));
    QCOMPARE(e.warnings, QStringList());
    // The simulator saw the decoded key.
    const QJsonArray reqs = m_ctl->requests();
    QCOMPARE(reqs.size(), 1);
    QCOMPARE(reqs.at(0)[QStringLiteral("method")].toString(), QStringLiteral("GET"));
    QCOMPARE(reqs.at(0)[QStringLiteral("path")].toString(), QStringLiteral("/tickets"));
    QCOMPARE(QUrlQuery(reqs.at(0)[QStringLiteral("query")].toString()).queryItemValue(QStringLiteral("idem_key"), QUrl::FullyDecoded), kFound);
}

void TestUpstreamSim::notFoundEmptyArray()
{
    const UpstreamEvidence e = m_client->query(q(kNone)).result();
    QCOMPARE(e.classification, UpstreamClass::NotFound);
    QCOMPARE(e.kind, UnusableKind::None);
    QCOMPARE(e.message, QStringLiteral("NOT_FOUND: HTTP 200 OK with an empty result at \"tickets\""));
    QCOMPARE(e.httpStatus, std::optional<int>(200));
    QCOMPARE(e.rawBody, QByteArray("{\"tickets\":[]}"));
    QCOMPARE(e.foundObjects, QStringList());
}

void TestUpstreamSim::ambiguous()
{
    const UpstreamEvidence e = m_client->query(q(kDup)).result();
    QCOMPARE(e.classification, UpstreamClass::Ambiguous);
    QCOMPARE(e.message, QStringLiteral("AMBIGUOUS: 2 objects at \"tickets\" for one key (HTTP 200 OK)"));
    QCOMPARE(e.foundObjects.size(), 2);
    QVERIFY(e.foundObjects.at(0).startsWith(QStringLiteral("{\"id\":21,")));
    QVERIFY(e.foundObjects.at(1).startsWith(QStringLiteral("{\"id\":22,")));
    QCOMPARE(e.rawBody, QByteArray("{\"tickets\":[") + e.foundObjects.at(0).toUtf8() + ',' + e.foundObjects.at(1).toUtf8() + "]}");
}

void TestUpstreamSim::foundById404Mode()
{
    const UpstreamEvidence e = m_client->query(byIdConfig(m_base), q(kFound, QStringLiteral("17"))).result();
    QCOMPARE(e.classification, UpstreamClass::Found);
    QCOMPARE(e.message, QStringLiteral("FOUND: one object at the document root (HTTP 200 OK)"));
    QCOMPARE(e.request.url, QStringLiteral("http://127.0.0.1:%1/tickets/17").arg(m_sim.port()));
    QCOMPARE(e.foundObjects.size(), 1);
    QCOMPARE(e.foundObjects.first().toUtf8(), e.rawBody);
}

void TestUpstreamSim::envelopeWithoutResultPathIsUnusable()
{
    // {"tickets": []} read at the document root is an envelope, not a ticket: never FOUND,
    // never a snapshot (DESIGN.md §6). The same for an envelope holding this key's ticket.
    UpstreamConfig c = listConfig(m_base);
    c.resultPath.clear();
    const QString message = QStringLiteral("HTTP 200 OK, but the object at the document root has no \"idem_key\" field: an "
                                           "envelope, not the business object (set upstream_result_path)");
    const UpstreamEvidence none = m_client->query(c, q(kNone)).result();
    QCOMPARE(none.rawBody, QByteArray("{\"tickets\":[]}"));
    QCOMPARE(none.classification, UpstreamClass::Unusable);
    QCOMPARE(none.kind, UnusableKind::UnexpectedShape);
    QCOMPARE(none.message, message);
    QCOMPARE(none.foundObjects, QStringList());
    const UpstreamEvidence found = m_client->query(c, q(kFound)).result();
    QCOMPARE(found.classification, UpstreamClass::Unusable);
    QCOMPARE(found.message, message);
    QCOMPARE(found.foundObjects, QStringList());
}

void TestUpstreamSim::answerForAnotherKeyIsUnusable()
{
    // The list route answering with another key's ticket.
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("other_key")) > 0);
    const UpstreamEvidence e = m_client->query(q(kNone)).result();
    QCOMPARE(e.rawBody, QByteArray("{\"tickets\":[{\"id\":777,\"idem_key\":\"ticket:create:acme:none-1-SOMEONE-ELSE\"}]}"));
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(e.kind, UnusableKind::OtherKey);
    QCOMPARE(e.message, QStringLiteral("HTTP 200 OK, but the upstream answered for another key: the object at \"tickets\" has "
                                       "idem_key = \"ticket:create:acme:none-1-SOMEONE-ELSE\""));
    QCOMPARE(e.foundObjects, QStringList());
    m_ctl->clearFaults();
    // The by-id route asked for a ticket that belongs to another key (a wrong {ticket_id}).
    const UpstreamEvidence byId = m_client->query(byIdConfig(m_base), q(kNone, QStringLiteral("17"))).result();
    QCOMPARE(byId.classification, UpstreamClass::Unusable);
    QCOMPARE(byId.kind, UnusableKind::OtherKey);
    QCOMPARE(byId.message, QStringLiteral("HTTP 200 OK, but the upstream answered for another key: the object at the document "
                                          "root has idem_key = \"ticket:create:acme:found-1\""));
}

void TestUpstreamSim::notFound404Json()
{
    const UpstreamEvidence e = m_client->query(byIdConfig(m_base), q(kNone, QStringLiteral("999"))).result();
    QCOMPARE(e.classification, UpstreamClass::NotFound);
    QCOMPARE(e.kind, UnusableKind::None);
    QCOMPARE(e.httpStatus, std::optional<int>(404));
    QCOMPARE(e.rawBody, QByteArray("{\"error\":\"not_found\"}"));
    QCOMPARE(e.message, QStringLiteral("NOT_FOUND: HTTP 404 Not Found with the upstream's JSON body"));
}

void TestUpstreamSim::emptyArrayIn404ModeIsUnusable()
{
    UpstreamConfig c = listConfig(m_base);
    c.notFound = NotFoundSignal::Http404;
    const UpstreamEvidence e = m_client->query(c, q(kNone)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(e.kind, UnusableKind::UnexpectedShape);
}

void TestUpstreamSim::json404InEmptyModeIsUnusable()
{
    UpstreamConfig c = byIdConfig(m_base);
    c.notFound = NotFoundSignal::EmptyResult;
    const UpstreamEvidence e = m_client->query(c, q(kNone, QStringLiteral("999"))).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(e.kind, UnusableKind::HttpOther);
    QCOMPARE(e.httpStatus, std::optional<int>(404));
}

void TestUpstreamSim::timeoutIgnoresLateAnswer()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 1500, 1) > 0);
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(m_base, 300)}});
    // Through a bulk run of one, so every answer the client reports can be counted.
    QElapsedTimer t;
    t.start();
    auto run = client.queryMany({q(kFound)});
    QSignalSpy results(run.get(), &UpstreamBulkRun::resultReady);
    QVERIFY(results.isValid());
    run->report().waitForFinished();
    QVERIFY(t.elapsed() < 1400); // the client did not wait for the answer
    const UpstreamBulkReport r = run->report().result();
    QCOMPARE(r.results.size(), 1);
    const UpstreamEvidence &e = r.results.first();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("timeout"));
    QCOMPARE(e.message, QStringLiteral("timed out after 300 ms (no answer; a late answer is ignored)"));
    QCOMPARE(e.httpStatus, std::nullopt);
    QVERIFY(e.networkError.isEmpty()); // never reported as Qt's "Operation canceled"
    QVERIFY2(e.elapsedMs >= 280 && e.elapsedMs < 1200, qPrintable(QString::number(e.elapsedMs)));
    QCOMPARE(r.timedOut, 1);
    QCOMPARE(r.cancelled, 0);
    QCOMPARE(r.state, UpstreamBulkState::Finished);
    // The simulator answers at 1500 ms to a client that left: nothing reaches us, and the
    // simulator survives the late write.
    QTest::qWait(1700);
    QCOMPARE(results.count(), 1);
    const QJsonObject stats = m_ctl->stats();
    QCOMPARE(stats[QStringLiteral("in_flight")].toInt(), 0);
    QCOMPARE(stats[QStringLiteral("requests")].toInt(), 1);
}

void TestUpstreamSim::stallAfterHeadersIsTimeout()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("stall_after_headers")) > 0);
    const UpstreamEvidence e = m_client->query(listConfig(m_base, 400), q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(e.kind, UnusableKind::Timeout);
    QCOMPARE(e.httpStatus, std::optional<int>(200)); // the status line did arrive
    QCOMPARE(e.rawBody, QByteArray());
    QCOMPARE(e.message, QStringLiteral("timed out after 400 ms (HTTP 200 OK arrived, 0 body bytes, the rest never came)"));
}

void TestUpstreamSim::connectionRefused()
{
    UpstreamConfig c = listConfig(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closedPort())));
    const UpstreamEvidence e = m_client->query(c, q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("connection_refused"));
    QCOMPARE(e.httpStatus, std::nullopt);
    QVERIFY(e.sent);
    QVERIFY(!e.networkError.isEmpty());
}

void TestUpstreamSim::dropIsConnectionReset()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("drop")) > 0);
    const UpstreamEvidence e = m_client->query(q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("connection_reset"));
    QCOMPARE(e.httpStatus, std::nullopt);
    // Qt re-sends a request whose connection closed before a status line (docs/QT-PITFALLS.md).
    const int hits = int(m_ctl->requests().size());
    qInfo("the simulator saw %d attempt(s) for one dropped query", hits);
    QVERIFY(hits >= 1);
}

void TestUpstreamSim::httpErrors_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("500") << "http_500" << 500 << "http_5xx" << "HTTP 500 Internal Server Error: upstream server error";
    QTest::newRow("503") << "http_503" << 503 << "http_5xx" << "HTTP 503 Service Unavailable: upstream server error";
    QTest::newRow("401") << "http_401" << 401 << "http_401" << "HTTP 401 Unauthorized: the upstream refused the credentials";
    QTest::newRow("403") << "http_403" << 403 << "http_403" << "HTTP 403 Forbidden: the credentials may not read this";
    QTest::newRow("429") << "http_429" << 429 << "http_429" << "HTTP 429 Too Many Requests: rate limited (Retry-After: 2)";
}

void TestUpstreamSim::httpErrors()
{
    QFETCH(QString, fault);
    QFETCH(int, status);
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), fault) > 0);
    const UpstreamEvidence e = m_client->query(q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), kind);
    QCOMPARE(e.httpStatus, std::optional<int>(status));
    QCOMPARE(e.message, message);
    QVERIFY(!e.rawBody.isEmpty()); // the error body is kept as evidence
}

void TestUpstreamSim::htmlBody200()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("html")) > 0);
    const UpstreamEvidence e = m_client->query(q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("html_body"));
    QCOMPARE(e.httpStatus, std::optional<int>(200));
    QCOMPARE(e.contentType, QStringLiteral("text/html; charset=utf-8"));
    QCOMPARE(e.bodyPreview.size(), 200);
    QCOMPARE(e.bodyPreview, QString::fromUtf8(e.rawBody.left(200)));
    QVERIFY(e.bodyPreview.startsWith(QStringLiteral("<!DOCTYPE html>\n<html><head><title>Sign in</title>")));
    QVERIFY(e.message.startsWith(QStringLiteral("HTTP 200 OK with an HTML body (Content-Type text/html; charset=utf-8), not the upstream's JSON: \"<!DOCTYPE html>")));
}

void TestUpstreamSim::html404IsUnusable()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets/{id}"), QStringLiteral("html_404")) > 0);
    const UpstreamEvidence e = m_client->query(byIdConfig(m_base), q(kFound, QStringLiteral("17"))).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable); // never NOT_FOUND
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("html_body"));
    QCOMPARE(e.httpStatus, std::optional<int>(404));
    QCOMPARE(e.contentType, QStringLiteral("text/html"));
    QVERIFY(e.bodyPreview.contains(QStringLiteral("<center>nginx/1.22.1</center>")));
}

void TestUpstreamSim::truncated()
{
    const QByteArray full = m_client->query(q(kFound)).result().rawBody;
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("truncated")) > 0);
    const UpstreamEvidence e = m_client->query(q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("truncated_body"));
    QCOMPARE(e.httpStatus, std::optional<int>(200));
    QCOMPARE(e.rawBody, full.left(full.size() / 2));
    QVERIFY2(e.message.startsWith(QStringLiteral("HTTP 200 OK, body cut off after %1 bytes of %2 announced").arg(full.size() / 2).arg(full.size())),
             qPrintable(e.message));
}

void TestUpstreamSim::invalidJson()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("invalid_json")) > 0);
    const UpstreamEvidence e = m_client->query(q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("invalid_json"));
    QCOMPARE(e.httpStatus, std::optional<int>(200));
    QCOMPARE(e.rawBody, QByteArray("{\"tickets\": [ {\"id\": 1, \"idem_key\": 'not json' } ] }"));
}

void TestUpstreamSim::bigIntegerWarning()
{
    const UpstreamEvidence e = m_client->query(q(kBig)).result();
    QCOMPARE(e.classification, UpstreamClass::Found);
    QCOMPARE(e.foundObjects.size(), 1);
    QVERIFY(e.foundObjectsExact);
    // The raw object keeps the exact text; the warning names each changed number.
    QVERIFY(e.foundObjects.first().contains(QStringLiteral("\"payload\":%1,").arg(kBigPayload)));
    QCOMPARE(e.warnings.size(), 3);
    QCOMPARE(e.warnings.at(0), QStringLiteral("the answer has numbers a JSON parser changes; the raw text below is exact, parsed views are not"));
    QCOMPARE(e.warnings.at(1), QStringLiteral("12345678901234567890 (integer beyond 2^53: rounded by double-based parsers, e.g. to 12345678901234567168)"));
    QCOMPARE(e.warnings.at(2), QStringLiteral("1.10 (re-written as 1.1 by a JSON parser)"));
    // The evidence JSON carries the body and objects as strings: exact through any parser.
    const QJsonObject j = QJsonDocument::fromJson(e.toJson()).object();
    QCOMPARE(j[QStringLiteral("raw_body")].toString().toUtf8(), e.rawBody);
    QCOMPARE(j[QStringLiteral("found_objects")].toArray().at(0).toString(), e.foundObjects.first());
    QCOMPARE(j[QStringLiteral("classification")].toString(), QStringLiteral("FOUND"));
}

void TestUpstreamSim::notConfigured()
{
    UpstreamQuery query = q(kFound);
    query.bizType = QStringLiteral("refund_issue");
    const UpstreamEvidence e = m_client->query(query).result();
    QCOMPARE(upstreamClassName(e.classification), QStringLiteral("NOT_CONFIGURED"));
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("not_configured"));
    QVERIFY(!e.sent);
    QCOMPARE(e.elapsedMs, -1);
    QCOMPARE(e.message, QStringLiteral("no upstream configured for biz_type refund_issue (upstream_query_url in [biz.refund_issue])"));
    QCOMPARE(m_ctl->requests().size(), 0);
}

void TestUpstreamSim::tokenAndHeaders()
{
    const QByteArray token = "s3cr3t-T0ken/+=";
    qputenv("TRIAGE_TEST_UPSTREAM_TOKEN", token);
    UpstreamConfig c = listConfig(m_base);
    c.tokenEnv = QStringLiteral("TRIAGE_TEST_UPSTREAM_TOKEN");
    c.sendIdempotencyKey = true;
    c.headers = {{"X-Api-Version", "2"}, {"Accept", "application/vnd.tickets+json"}};
    const UpstreamEvidence e = m_client->query(c, q(kFound)).result();
    qunsetenv("TRIAGE_TEST_UPSTREAM_TOKEN");
    QCOMPARE(e.classification, UpstreamClass::Found);
    // The simulator got the real headers…
    const QJsonArray reqs = m_ctl->requests();
    QCOMPARE(reqs.size(), 1);
    QMap<QString, QString> got;
    for (const QJsonValue &h : reqs.at(0)[QStringLiteral("headers")].toArray())
        got.insert(h.toArray().at(0).toString().toLower(), h.toArray().at(1).toString());
    QCOMPARE(got.value(QStringLiteral("authorization")), QStringLiteral("Bearer ") + QString::fromUtf8(token));
    QCOMPARE(got.value(QStringLiteral("x-idempotency-key")), kFound);
    QCOMPARE(got.value(QStringLiteral("x-api-version")), QStringLiteral("2"));
    QCOMPARE(got.value(QStringLiteral("accept")), QStringLiteral("application/vnd.tickets+json"));
    // …the evidence never shows the token.
    QMap<QByteArray, QByteArray> shown;
    for (const auto &h : e.request.headers)
        shown.insert(h.first.toLower(), h.second);
    QCOMPARE(shown.value("authorization"), QByteArray("<redacted>"));
    QCOMPARE(shown.value("x-idempotency-key"), kFound.toUtf8());
    QVERIFY(!e.toJson().contains(token));
    QVERIFY(!e.request.url.contains(QString::fromUtf8(token)));
}

void TestUpstreamSim::missingTokenVariable()
{
    qunsetenv("TRIAGE_TEST_UPSTREAM_TOKEN_UNSET");
    UpstreamConfig c = listConfig(m_base);
    c.tokenEnv = QStringLiteral("TRIAGE_TEST_UPSTREAM_TOKEN_UNSET");
    const UpstreamEvidence e = m_client->query(c, q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(e.kind, UnusableKind::NotConfigured);
    QVERIFY(!e.sent);
    QCOMPARE(e.message, QStringLiteral("the token variable TRIAGE_TEST_UPSTREAM_TOKEN_UNSET named by upstream_token_env is not set"));
    QCOMPARE(m_ctl->requests().size(), 0);
}

void TestUpstreamSim::missingTicketIdPlaceholder()
{
    const UpstreamEvidence e = m_client->query(byIdConfig(m_base), q(kFound)).result();
    QCOMPARE(e.classification, UpstreamClass::Unusable);
    QCOMPARE(unusableKindName(e.kind), QStringLiteral("invalid_request"));
    QVERIFY(!e.sent);
    QCOMPARE(e.message, QStringLiteral("cannot build the query URL: upstream_query_url needs {ticket_id}, which is not known for this key"));
}

void TestUpstreamSim::cancelFutureAbortsRequest()
{
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 3000) > 0);
    QFuture<UpstreamEvidence> f = m_client->query(q(kFound));
    QTRY_COMPARE_WITH_TIMEOUT(m_ctl->stats()[QStringLiteral("in_flight")].toInt(), 1, 2000);
    f.cancel();
    QElapsedTimer t;
    t.start();
    f.waitForFinished();
    QVERIFY(f.isCanceled());
    QVERIFY(t.elapsed() < 2000);
    QCOMPARE(f.resultCount(), 0);
}

void TestUpstreamSim::everyBackend_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TestUpstreamSim::everyBackend()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(insertTicketRow(db, 17, kFound, kBigPayload), QString());
    QCOMPARE(insertTicketRow(db, 21, kDup, QStringLiteral("{\"ticket_id\":21}")), QString());
    QCOMPARE(insertTicketRow(db, 22, kDup, QStringLiteral("{\"ticket_id\":22}")), QString());
    UpstreamSimulatorProcess sim;
    QString error;
    QVERIFY2(sim.start(db.url(), &error), qPrintable(error));
    UpstreamClient client({{QStringLiteral("ticket_create"), listConfig(sim.baseUrl())}});
    const UpstreamEvidence found = client.query(q(kFound)).result();
    QCOMPARE(found.classification, UpstreamClass::Found);
    QVERIFY2(found.foundObjects.first().contains(QStringLiteral("\"payload\":%1,").arg(kBigPayload)), qPrintable(found.foundObjects.first()));
    QVERIFY(found.foundObjects.first().contains(QRegularExpression(QStringLiteral("\"created_at\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z\""))));
    QCOMPARE(client.query(q(kDup)).result().classification, UpstreamClass::Ambiguous);
    QCOMPARE(client.query(q(kNone)).result().classification, UpstreamClass::NotFound);
    QCOMPARE(client.query(byIdConfig(sim.baseUrl()), q(kFound, QStringLiteral("17"))).result().classification, UpstreamClass::Found);
    QCOMPARE(client.query(byIdConfig(sim.baseUrl()), q(kFound, QStringLiteral("18"))).result().classification, UpstreamClass::NotFound);
}

QTEST_GUILESS_MAIN(TestUpstreamSim)
#include "tst_upstream_sim.moc"
