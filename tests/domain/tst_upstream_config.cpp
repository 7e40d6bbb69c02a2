// Upstream configuration (the upstream_* keys of [biz.<biz_type>]), URL templates, the
// pure classification of answers that a simulator cannot easily produce, and the raw
// JSON slicer that keeps evidence byte-exact.
#include "RawJson.h"
#include "UpstreamConfig.h"
#include "UpstreamEvidence.h"
#include "WorkspaceConfig.h"

#include <QNetworkReply>
#include <QSettings>
#include <QTemporaryDir>
#include "IniFile.h"

#include <QTest>

using namespace triage;

Q_DECLARE_METATYPE(triage::UpstreamConfig)
Q_DECLARE_METATYPE(triage::UpstreamResponseFacts)

namespace {

QString writeIni(const QTemporaryDir &dir, const QString &text)
{
    return triage::test::writeIni(dir, QStringLiteral("triage.ini"), text.toUtf8());
}

UpstreamConfig cfg(NotFoundSignal nf = NotFoundSignal::EmptyResult, const QString &path = QStringLiteral("tickets"))
{
    UpstreamConfig c;
    c.bizType = QStringLiteral("ticket_create");
    c.baseUrl = QStringLiteral("http://up.example");
    c.queryUrl = QStringLiteral("/tickets?idem_key={idem_key}");
    c.notFound = nf;
    c.resultPath = path;
    return c;
}

UpstreamResponseFacts http(int status, const QByteArray &body, const QByteArray &contentType = "application/json")
{
    UpstreamResponseFacts f;
    f.status = status;
    f.body = body;
    f.headers = {{"Content-Type", contentType}};
    return f;
}

} // namespace

class TestUpstreamConfig : public QObject {
    Q_OBJECT
private slots:
    void fullSection();
    void unquotedHeaders();
    void defaultsAndNotConfigured();
    void workspaceConfigLoadsUpstreams();
    void invalidValues_data();
    void invalidValues();
    void buildUrl();
    void headerList();

    void classifyPure_data();
    void classifyPure();
    void foundOnlyForThisKey_data();
    void foundOnlyForThisKey();
    void redaction();

    void rawJsonFind();
    void rawJsonLossyNumbers();
};

void TestUpstreamConfig::fullSection()
{
    QTemporaryDir dir;
    const QString ini = writeIni(dir, QStringLiteral(
        "[biz.ticket_create]\n"
        "upstream_base_url=https://tickets.example.internal/api/\n"
        "upstream_query_url=/v2/tickets?idem_key={idem_key}&tenant={tenant}\n"
        "upstream_method=get\n"
        "upstream_headers=\"X-Api-Version: 2; Accept: application/json, text/plain\"\n"
        "upstream_token_env=TICKETS_API_TOKEN\n"
        "upstream_timeout_ms=2500\n"
        "upstream_send_idempotency_key=yes\n"
        "upstream_not_found=empty\n"
        "upstream_result_path=data.tickets\n"
        "upstream_key_field=meta.request_key\n"));
    QString error;
    const auto c = upstreamConfigFor(ini, QStringLiteral("ticket_create"), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->bizType, QStringLiteral("ticket_create"));
    QCOMPARE(c->baseUrl, QStringLiteral("https://tickets.example.internal/api/"));
    QCOMPARE(c->queryUrl, QStringLiteral("/v2/tickets?idem_key={idem_key}&tenant={tenant}"));
    QCOMPARE(c->method, QByteArray("GET"));
    QCOMPARE(c->headers.size(), 2);
    QCOMPARE(c->headers.at(0), qMakePair(QByteArray("X-Api-Version"), QByteArray("2")));
    QCOMPARE(c->headers.at(1), qMakePair(QByteArray("Accept"), QByteArray("application/json, text/plain")));
    QCOMPARE(c->tokenEnv, QStringLiteral("TICKETS_API_TOKEN"));
    QCOMPARE(c->timeoutMs, 2500);
    QCOMPARE(c->caFile, QString());
    QCOMPARE(c->sendIdempotencyKey, true);
    QCOMPARE(c->notFound, NotFoundSignal::EmptyResult);
    QCOMPARE(c->resultPath, QStringLiteral("data.tickets"));
    QCOMPARE(c->keyField, QStringLiteral("meta.request_key"));
    QString why;
    const auto url = c->buildUrl(QStringLiteral("ticket:create:acme:7f3c"), QStringLiteral("acme"), {}, &why);
    QVERIFY2(url, qPrintable(why));
    QCOMPARE(QString::fromUtf8(url->toEncoded()),
             QStringLiteral("https://tickets.example.internal/api/v2/tickets?idem_key=ticket%3Acreate%3Aacme%3A7f3c&tenant=acme"));
}

void TestUpstreamConfig::unquotedHeaders()
{
    // QSettings alone would read "X-Api-Version: 2" (an unquoted ';' starts a comment).
    QTemporaryDir dir;
    const QString ini = writeIni(dir, QStringLiteral("[biz.ticket_create]\nupstream_base_url=http://127.0.0.1:8080\n"
                                                     "upstream_query_url=/t?k={idem_key}\n"
                                                     "upstream_headers=X-Api-Version: 2; Accept: application/json, text/plain\n"));
    QString error;
    const auto c = upstreamConfigFor(ini, QStringLiteral("ticket_create"), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->headers.size(), 2);
    QCOMPARE(c->headers.at(0), qMakePair(QByteArray("X-Api-Version"), QByteArray("2")));
    QCOMPARE(c->headers.at(1), qMakePair(QByteArray("Accept"), QByteArray("application/json, text/plain")));
}

void TestUpstreamConfig::defaultsAndNotConfigured()
{
    QTemporaryDir dir;
    const QString ini = writeIni(dir, QStringLiteral("[biz.ticket_create]\nupstream_query_url=http://127.0.0.1:9/tickets/{ticket_id}\n"
                                                     "[biz.refund_issue]\nprocessing_timeout=600\n"));
    QString error = QStringLiteral("stale");
    const auto c = upstreamConfigFor(ini, QStringLiteral("ticket_create"), &error);
    QVERIFY(c);
    QCOMPARE(c->method, QByteArray("GET"));
    QCOMPARE(c->timeoutMs, 5000);
    QCOMPARE(c->notFound, NotFoundSignal::Http404);
    QCOMPARE(c->resultPath, QString());
    QCOMPARE(c->keyField, QStringLiteral("idem_key"));
    QCOMPARE(c->sendIdempotencyKey, false);
    QCOMPARE(c->headers.size(), 0);
    QCOMPARE(c->tokenEnv, QString());
    QCOMPARE(c->baseUrl, QString());
    // A section without upstream_query_url: not configured, and not an error.
    QVERIFY(!upstreamConfigFor(ini, QStringLiteral("refund_issue"), &error));
    QCOMPARE(error, QString());
    QVERIFY(!upstreamConfigFor(ini, QStringLiteral("no_such_type"), &error));
    QCOMPARE(error, QString());
    QVERIFY(!upstreamConfigFor(dir.filePath(QStringLiteral("missing.ini")), QStringLiteral("ticket_create"), &error));
    QVERIFY(error.contains(QStringLiteral("missing.ini")));
}

void TestUpstreamConfig::workspaceConfigLoadsUpstreams()
{
    QTemporaryDir dir;
    const QString ini = writeIni(dir, QStringLiteral(
        "[console]\nprocessing_timeout=300\n"
        "[biz.ticket_create]\nprocessing_timeout=120\ntenant_pattern=ticket:create:{tenant}\n"
        "upstream_base_url=http://127.0.0.1:8080\nupstream_query_url=/tickets?idem_key={idem_key}\n"
        "upstream_not_found=empty\nupstream_result_path=tickets\n"
        "[biz.payment_capture]\nprocessing_timeout=900\n"));
    QString error;
    const auto w = WorkspaceConfig::fromIniFile(ini, &error);
    QVERIFY2(w, qPrintable(error));
    QCOMPARE(w->upstreams.keys(), QStringList{QStringLiteral("ticket_create")});
    QCOMPARE(w->upstreams.value(QStringLiteral("ticket_create")).notFound, NotFoundSignal::EmptyResult);
    QCOMPARE(w->bizType(QStringLiteral("ticket_create")).processingTimeoutS, 120); // existing keys still read
    QCOMPARE(w->bizType(QStringLiteral("payment_capture")).processingTimeoutS, 900);

    // An invalid upstream key fails the whole file, naming the line, the section and key.
    const QString bad = writeIni(dir, QStringLiteral("[biz.ticket_create]\nupstream_query_url=/tickets/{id}\nupstream_base_url=http://x\n"));
    QVERIFY(!WorkspaceConfig::fromIniFile(bad, &error));
    QCOMPARE(error, QStringLiteral("config %1:2: [biz.ticket_create] upstream_query_url: unknown placeholder {id} (known: {idem_key}, {tenant}, {ticket_id})").arg(bad));
}

void TestUpstreamConfig::invalidValues_data()
{
    QTest::addColumn<QString>("lines");
    QTest::addColumn<QString>("error");
    const QString base = QStringLiteral("upstream_base_url=http://127.0.0.1:8080\nupstream_query_url=/t?k={idem_key}\n");
    QTest::newRow("no base for relative") << "upstream_query_url=/t?k={idem_key}\n"
                                          << "[biz.t] upstream_query_url: upstream_query_url is relative and upstream_base_url is not set";
    QTest::newRow("base not http") << "upstream_base_url=ftp://x\nupstream_query_url=/t\n"
                                   << "[biz.t] upstream_base_url: must be an http:// or https:// URL with a host";
    QTest::newRow("credentials in base") << "upstream_base_url=http://u:p@x\nupstream_query_url=/t\n"
                                         << "[biz.t] upstream_base_url: must not carry credentials (use upstream_token_env)";
    QTest::newRow("method") << base + "upstream_method=DELETE\n" << "[biz.t] upstream_method: must be GET or POST";
    QTest::newRow("authorization header") << base + "upstream_headers=\"Authorization: Bearer abc\"\n"
                                          << "[biz.t] upstream_headers: no Authorization header in the file: name an environment variable in upstream_token_env";
    QTest::newRow("header syntax") << base + "upstream_headers=\"X-Api-Version 2\"\n"
                                   << "[biz.t] upstream_headers: header \"X-Api-Version 2\" is not \"Name: value\"";
    QTest::newRow("token in file") << base + "upstream_token_env=\"Bearer abc.def\"\n"
                                   << "[biz.t] upstream_token_env: must be the name of an environment variable, not a token";
    QTest::newRow("timeout") << base + "upstream_timeout_ms=0\n"
                             << "[biz.t] upstream_timeout_ms: must be a number of milliseconds between 1 and 600000";
    QTest::newRow("ca file") << base + "upstream_ca_file=/nonexistent/ca.pem\n"
                             << "[biz.t] upstream_ca_file: /nonexistent/ca.pem is not a readable file";
    QTest::newRow("bool") << base + "upstream_send_idempotency_key=maybe\n"
                          << "[biz.t] upstream_send_idempotency_key: must be true or false";
    QTest::newRow("not found") << base + "upstream_not_found=410\n" << "[biz.t] upstream_not_found: must be \"404\" or \"empty\"";
    QTest::newRow("result path") << base + "upstream_result_path=data..items\n"
                                 << "[biz.t] upstream_result_path: must be dot-separated keys (\"tickets\", \"data.items\") or empty";
    const QString keyFieldError = QStringLiteral("[biz.t] upstream_key_field: must be dot-separated keys naming the field that "
                                                 "carries the idempotency key (\"idem_key\", \"meta.request_key\")");
    QTest::newRow("key field empty") << base + "upstream_key_field=\n" << keyFieldError;
    QTest::newRow("key field path") << base + "upstream_key_field=meta..key\n" << keyFieldError;
}

void TestUpstreamConfig::invalidValues()
{
    QFETCH(QString, lines);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QSettings s(writeIni(dir, QStringLiteral("[biz.t]\n") + lines), QSettings::IniFormat);
    QString got;
    QVERIFY(!upstreamConfigFor(s, QStringLiteral("t"), &got));
    QCOMPARE(got, error);
}

void TestUpstreamConfig::buildUrl()
{
    UpstreamConfig c = cfg();
    QString why;
    // Reserved characters, spaces and non-ASCII are percent-encoded (UTF-8).
    auto url = c.buildUrl(QStringLiteral("a b&c=d/é?#"), {}, {}, &why);
    QVERIFY2(url, qPrintable(why));
    QCOMPARE(QString::fromUtf8(url->toEncoded()), QStringLiteral("http://up.example/tickets?idem_key=a%20b%26c%3Dd%2F%C3%A9%3F%23"));
    // Absolute templates ignore the base; base without a path joins with one slash.
    c.queryUrl = QStringLiteral("https://other.example/t/{ticket_id}");
    QCOMPARE(c.buildUrl(QStringLiteral("k"), {}, QStringLiteral("17"), &why)->toString(), QStringLiteral("https://other.example/t/17"));
    c.baseUrl = QStringLiteral("http://up.example/api");
    c.queryUrl = QStringLiteral("tickets/{ticket_id}");
    QCOMPARE(c.buildUrl(QStringLiteral("k"), {}, QStringLiteral("17"), &why)->toString(), QStringLiteral("http://up.example/api/tickets/17"));
    // A needed value that is missing.
    QVERIFY(!c.buildUrl(QStringLiteral("k"), {}, {}, &why));
    QCOMPARE(why, QStringLiteral("upstream_query_url needs {ticket_id}, which is not known for this key"));
}

void TestUpstreamConfig::headerList()
{
    QString why;
    const auto h = parseHeaderList(QStringLiteral(" X-A: 1 ;; X-B:two words ; "), &why);
    QVERIFY(h);
    QCOMPARE(h->size(), 2);
    QCOMPARE(h->at(1), qMakePair(QByteArray("X-B"), QByteArray("two words")));
    QVERIFY(!parseHeaderList(QStringLiteral("Bad Name: x"), &why));
    QCOMPARE(why, QStringLiteral("header name \"Bad Name\" is not a valid HTTP token"));
}

void TestUpstreamConfig::classifyPure_data()
{
    QTest::addColumn<UpstreamConfig>("config");
    QTest::addColumn<UpstreamResponseFacts>("facts");
    QTest::addColumn<QString>("classification");
    QTest::addColumn<QString>("kind");

    QTest::newRow("root array, 1 object") << cfg(NotFoundSignal::EmptyResult, {}) << http(200, "[{\"id\":1,\"idem_key\":\"k-1\"}]")
                                          << "FOUND" << "";
    QTest::newRow("nested path") << cfg(NotFoundSignal::EmptyResult, QStringLiteral("data.items"))
                                 << http(200, "{\"data\":{\"items\":[{\"id\":1,\"idem_key\":\"k-1\"},{\"id\":2,\"idem_key\":\"k-1\"}]}}")
                                 << "AMBIGUOUS" << "";
    QTest::newRow("null result, empty mode") << cfg() << http(200, "{\"tickets\":null}") << "NOT_FOUND" << "";
    QTest::newRow("path missing") << cfg() << http(200, "{\"items\":[]}") << "UNUSABLE" << "unexpected_shape";
    QTest::newRow("array of scalars") << cfg() << http(200, "{\"tickets\":[1]}") << "UNUSABLE" << "unexpected_shape";
    QTest::newRow("bare scalar") << cfg() << http(200, "42") << "UNUSABLE" << "invalid_json";
    QTest::newRow("empty 200") << cfg() << http(200, "") << "UNUSABLE" << "invalid_json";
    QTest::newRow("204") << cfg() << http(204, "") << "UNUSABLE" << "invalid_json";
    QTest::newRow("cut JSON, no length") << cfg() << http(200, "{\"tickets\":[{\"id\":1,\"idem_") << "UNUSABLE" << "truncated_body";
    QTest::newRow("cut JSON array") << cfg() << http(200, "{\"tickets\":[{\"id\":1},") << "UNUSABLE" << "truncated_body";
    QTest::newRow("bad JSON") << cfg() << http(200, "{\"tickets\":[1,,2]}") << "UNUSABLE" << "invalid_json";
    QTest::newRow("plain text 200") << cfg() << http(200, "service is warming up, try again", "text/plain") << "UNUSABLE" << "invalid_json";
    QTest::newRow("html without type") << cfg() << http(200, "  <html><body>hi</body></html>", "") << "UNUSABLE" << "html_body";
    QTest::newRow("502 html from proxy") << cfg() << http(502, "<html>bad gateway</html>", "text/html") << "UNUSABLE" << "http_5xx";
    QTest::newRow("302 redirect") << cfg() << http(302, "") << "UNUSABLE" << "http_other";
    QTest::newRow("400") << cfg() << http(400, "{\"error\":\"bad\"}") << "UNUSABLE" << "http_other";
    QTest::newRow("404 json, 404 mode") << cfg(NotFoundSignal::Http404, {}) << http(404, "{\"error\":\"not_found\"}") << "NOT_FOUND" << "";
    QTest::newRow("404 empty body") << cfg(NotFoundSignal::Http404, {}) << http(404, "", "") << "UNUSABLE" << "invalid_json";
    QTest::newRow("404 text") << cfg(NotFoundSignal::Http404, {}) << http(404, "Not Found", "text/plain") << "UNUSABLE" << "invalid_json";
    QTest::newRow("empty array, 404 mode") << cfg(NotFoundSignal::Http404) << http(200, "{\"tickets\":[]}") << "UNUSABLE" << "unexpected_shape";
    {
        UpstreamResponseFacts f = http(200, "{\"tickets\":[]}");
        f.headers.append(qMakePair(QByteArray("Content-Length"), QByteArray("200")));
        QTest::newRow("shorter than Content-Length") << cfg() << f << "UNUSABLE" << "truncated_body";
    }
    {
        UpstreamResponseFacts f = http(200, "{\"tickets\":[{\"id\":1}");
        f.transportError = TransportError::RemoteClosed;
        f.errorString = QStringLiteral("Connection closed");
        QTest::newRow("closed after status") << cfg() << f << "UNUSABLE" << "truncated_body";
    }
    {
        UpstreamResponseFacts f;
        f.transportError = TransportError::Cancelled;
        f.errorString = QStringLiteral("Operation canceled");
        QTest::newRow("Qt transfer timeout is a timeout") << cfg() << f << "UNUSABLE" << "timeout";
    }
    {
        UpstreamResponseFacts f;
        f.transportError = TransportError::Cancelled;
        f.cancelled = true;
        QTest::newRow("our cancel") << cfg() << f << "UNUSABLE" << "cancelled";
    }
    {
        UpstreamResponseFacts f = http(200, "{\"tickets\":[{\"id\":1}]}");
        f.timedOut = true; // our deadline wins over a complete-looking body
        QTest::newRow("our deadline") << cfg() << f << "UNUSABLE" << "timeout";
    }
    {
        UpstreamResponseFacts f;
        f.transportError = TransportError::TlsHandshake;
        f.errorString = QStringLiteral("SSL handshake failed");
        f.sslErrors = {QStringLiteral("The issuer certificate of a locally looked up certificate could not be found")};
        QTest::newRow("tls") << cfg() << f << "UNUSABLE" << "tls_error";
    }
    {
        UpstreamResponseFacts f;
        f.transportError = TransportError::OtherNetwork;
        f.errorString = QStringLiteral("Host up.example not found");
        QTest::newRow("dns") << cfg() << f << "UNUSABLE" << "network_error";
    }
}

void TestUpstreamConfig::classifyPure()
{
    QFETCH(UpstreamConfig, config);
    QFETCH(UpstreamResponseFacts, facts);
    QFETCH(QString, classification);
    QFETCH(QString, kind);
    const UpstreamEvidence e = classifyUpstreamResponse(config, QStringLiteral("k-1"), facts);
    QCOMPARE(upstreamClassName(e.classification), classification);
    QCOMPARE(unusableKindName(e.kind), kind);
    QVERIFY(!e.message.isEmpty());
    QCOMPARE(e.rawBody, facts.body);
}

void TestUpstreamConfig::foundOnlyForThisKey_data()
{
    // DESIGN.md §6: FOUND only for an object carrying the queried key; the snapshot is the
    // object itself, never its envelope. The queried key is kKey.
    QTest::addColumn<UpstreamConfig>("config");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("classification");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QStringList>("found");
    QTest::addColumn<QStringList>("warnings");
    const UpstreamConfig root = cfg(NotFoundSignal::EmptyResult, {});
    const UpstreamConfig tickets = cfg(NotFoundSignal::EmptyResult, QStringLiteral("tickets"));
    UpstreamConfig nested = tickets;
    nested.keyField = QStringLiteral("meta.request_key");

    QTest::newRow("empty envelope, root unset")
        << root << QByteArray("{\"tickets\": []}") << "UNUSABLE" << "unexpected_shape"
        << "HTTP 200, but the object at the document root has no \"idem_key\" field: an envelope, not the business object "
           "(set upstream_result_path)"
        << QStringList() << QStringList();
    QTest::newRow("envelope of another key, root unset")
        << root << QByteArray("{\"tickets\":[{\"id\":777,\"idem_key\":\"ticket:create:acme:SOMEONE-ELSE\"}]}") << "UNUSABLE"
        << "unexpected_shape"
        << "HTTP 200, but the object at the document root has no \"idem_key\" field: an envelope, not the business object "
           "(set upstream_result_path)"
        << QStringList() << QStringList();
    QTest::newRow("another key at the result path")
        << tickets << QByteArray("{\"tickets\":[{\"id\":777,\"idem_key\":\"ticket:create:acme:SOMEONE-ELSE\"}]}") << "UNUSABLE"
        << "other_key"
        << "HTTP 200, but the upstream answered for another key: the object at \"tickets\" has idem_key = "
           "\"ticket:create:acme:SOMEONE-ELSE\""
        << QStringList() << QStringList();
    QTest::newRow("another key at the root")
        << root << QByteArray("{\"id\":777,\"idem_key\":\"ticket:create:acme:SOMEONE-ELSE\"}") << "UNUSABLE" << "other_key"
        << "HTTP 200, but the upstream answered for another key: the object at the document root has idem_key = "
           "\"ticket:create:acme:SOMEONE-ELSE\""
        << QStringList() << QStringList();
    QTest::newRow("a number is not this key")
        << root << QByteArray("{\"id\":777,\"idem_key\":42}") << "UNUSABLE" << "other_key"
        << "HTTP 200, but the upstream answered for another key: the object at the document root has idem_key = 42"
        << QStringList() << QStringList();
    QTest::newRow("object without the key field at a path")
        << tickets << QByteArray("{\"tickets\":{\"id\":5}}") << "UNUSABLE" << "unexpected_shape"
        << "HTTP 200, but the object at \"tickets\" has no \"idem_key\" field: cannot tell which key it answers for (set "
           "upstream_key_field)"
        << QStringList() << QStringList();
    QTest::newRow("objects without the key field")
        << tickets << QByteArray("{\"tickets\":[{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"},{\"id\":6}]}") << "UNUSABLE"
        << "unexpected_shape"
        << "HTTP 200, but 1 of 2 objects at \"tickets\" have no \"idem_key\" field: cannot tell which key they answer for (set "
           "upstream_key_field)"
        << QStringList() << QStringList();
    QTest::newRow("root object with this key")
        << root << QByteArray("{\"id\":5, \"idem_key\":\"ticket:create:acme:1\"}") << "FOUND" << ""
        << "FOUND: one object at the document root (HTTP 200)"
        << QStringList{QStringLiteral("{\"id\":5, \"idem_key\":\"ticket:create:acme:1\"}")} << QStringList();
    QTest::newRow("the object, not its envelope")
        << tickets << QByteArray("{\"tickets\":[ {\"id\":5,\"idem_key\":\"ticket:create:acme:1\"} ]}") << "FOUND" << ""
        << "FOUND: one object at \"tickets\" (HTTP 200)"
        << QStringList{QStringLiteral("{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"}")} << QStringList();
    QTest::newRow("others ignored")
        << tickets
        << QByteArray("{\"tickets\":[{\"id\":4,\"idem_key\":\"ticket:create:acme:0\"},{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"}]}")
        << "FOUND" << "" << "FOUND: one object at \"tickets\" (HTTP 200)"
        << QStringList{QStringLiteral("{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"}")}
        << QStringList{QStringLiteral("the answer also held 1 object(s) at \"tickets\" for other keys (the first has idem_key = "
                                      "\"ticket:create:acme:0\"): not this key's, ignored")};
    QTest::newRow("ambiguous counts only this key")
        << tickets
        << QByteArray("{\"tickets\":[{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"},{\"id\":4,\"idem_key\":\"x\"},"
                      "{\"id\":6,\"idem_key\":\"ticket:create:acme:1\"}]}")
        << "AMBIGUOUS" << "" << "AMBIGUOUS: 2 objects at \"tickets\" for one key (HTTP 200)"
        << QStringList{QStringLiteral("{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"}"),
                       QStringLiteral("{\"id\":6,\"idem_key\":\"ticket:create:acme:1\"}")}
        << QStringList{QStringLiteral("the answer also held 1 object(s) at \"tickets\" for other keys (the first has idem_key = "
                                      "\"x\"): not this key's, ignored")};
    QTest::newRow("several other keys")
        << tickets << QByteArray("{\"tickets\":[{\"id\":4,\"idem_key\":\"x\"},{\"id\":5,\"idem_key\":\"y\"}]}") << "UNUSABLE"
        << "other_key"
        << "HTTP 200, but the upstream answered for another key: none of the 2 objects at \"tickets\" has this key (the first "
           "has idem_key = \"x\")"
        << QStringList() << QStringList();
    QTest::newRow("one other key is not ambiguous")
        << tickets
        << QByteArray("{\"tickets\":[{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"},{\"id\":4,\"idem_key\":\"x\"}]}")
        << "FOUND" << "" << "FOUND: one object at \"tickets\" (HTTP 200)"
        << QStringList{QStringLiteral("{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"}")}
        << QStringList{QStringLiteral("the answer also held 1 object(s) at \"tickets\" for other keys (the first has idem_key = "
                                      "\"x\"): not this key's, ignored")};
    QTest::newRow("dotted key field")
        << nested << QByteArray("{\"tickets\":[{\"id\":5,\"meta\":{\"request_key\":\"ticket:create:acme:1\"}}]}") << "FOUND" << ""
        << "FOUND: one object at \"tickets\" (HTTP 200)"
        << QStringList{QStringLiteral("{\"id\":5,\"meta\":{\"request_key\":\"ticket:create:acme:1\"}}")} << QStringList();
    QTest::newRow("dotted key field, another key")
        << nested << QByteArray("{\"tickets\":[{\"id\":5,\"meta\":{\"request_key\":\"other\"}}]}") << "UNUSABLE" << "other_key"
        << "HTTP 200, but the upstream answered for another key: the object at \"tickets\" has meta.request_key = \"other\""
        << QStringList() << QStringList();
    QTest::newRow("dotted key field missing")
        << nested << QByteArray("{\"tickets\":[{\"id\":5,\"idem_key\":\"ticket:create:acme:1\"}]}") << "UNUSABLE"
        << "unexpected_shape"
        << "HTTP 200, but the object at \"tickets\" has no \"meta.request_key\" field: cannot tell which key it answers for (set "
           "upstream_key_field)"
        << QStringList() << QStringList();
    QTest::newRow("empty result is still NOT_FOUND")
        << tickets << QByteArray("{\"tickets\": []}") << "NOT_FOUND" << ""
        << "NOT_FOUND: HTTP 200 with an empty result at \"tickets\"" << QStringList() << QStringList();
}

void TestUpstreamConfig::foundOnlyForThisKey()
{
    QFETCH(UpstreamConfig, config);
    QFETCH(QByteArray, body);
    QFETCH(QString, classification);
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QFETCH(QStringList, found);
    QFETCH(QStringList, warnings);
    const UpstreamEvidence e = classifyUpstreamResponse(config, QStringLiteral("ticket:create:acme:1"), http(200, body));
    QCOMPARE(upstreamClassName(e.classification), classification);
    QCOMPARE(unusableKindName(e.kind), kind);
    QCOMPARE(e.message, message);
    QCOMPARE(e.foundObjects, found);
    QCOMPARE(e.warnings, warnings);
    QCOMPARE(e.idemKey, QStringLiteral("ticket:create:acme:1"));
}

void TestUpstreamConfig::redaction()
{
    const HttpHeaderList h = redactHeaders({{"Authorization", "Bearer x"}, {"X-Api-Key", "k"}, {"Cookie", "c"},
                                            {"X-Idempotency-Key", "ticket:create:acme:1"}, {"Accept", "application/json"}});
    QCOMPARE(h.at(0).second, QByteArray("<redacted>"));
    QCOMPARE(h.at(1).second, QByteArray("<redacted>"));
    QCOMPARE(h.at(2).second, QByteArray("<redacted>"));
    QCOMPARE(h.at(3).second, QByteArray("ticket:create:acme:1")); // an idempotency key is not a secret
    QCOMPARE(h.at(4).second, QByteArray("application/json"));
}

void TestUpstreamConfig::rawJsonFind()
{
    const QByteArray j = " {\"a\" : {\"b\\u0020c\": [ {\"x\":1.10} , {\"y\":\"]}\"} ]}, \"b\":2 } ";
    const auto root = rawjson::root(j);
    QVERIFY(root);
    QCOMPARE(root->slice(j), j.trimmed());
    const auto arr = rawjson::find(j, {QStringLiteral("a"), QStringLiteral("b c")});
    QVERIFY(arr);
    QCOMPARE(rawjson::kind(j, *arr), '[');
    const QVector<RawSpan> el = rawjson::arrayElements(j, *arr);
    QCOMPARE(el.size(), 2);
    QCOMPARE(el.at(0).slice(j), QByteArray("{\"x\":1.10}"));
    QCOMPARE(el.at(1).slice(j), QByteArray("{\"y\":\"]}\"}"));
    QCOMPARE(rawjson::find(j, {QStringLiteral("b")})->slice(j), QByteArray("2"));
    QVERIFY(!rawjson::find(j, {QStringLiteral("zz")}));
    QVERIFY(!rawjson::find(j, {QStringLiteral("b"), QStringLiteral("c")}));
    QVERIFY(!rawjson::root("{\"a\":1} trailing"));
}

void TestUpstreamConfig::rawJsonLossyNumbers()
{
    QCOMPARE(rawjson::lossyNumbers("{\"a\":9007199254740992,\"b\":-12,\"c\":0.5,\"s\":\"12345678901234567890\"}"), QStringList());
    const QStringList w = rawjson::lossyNumbers("[9007199254740993, 1e3, 1.0, -12345678901234567890]");
    QCOMPARE(w.size(), 4);
    QVERIFY(w.at(0).startsWith(QStringLiteral("9007199254740993 (integer beyond 2^53")));
    QCOMPARE(w.at(1), QStringLiteral("1e3 (re-written as 1000 by a JSON parser)"));
    QCOMPARE(w.at(2), QStringLiteral("1.0 (re-written as 1 by a JSON parser)"));
    QVERIFY(w.at(3).startsWith(QStringLiteral("-12345678901234567890 (integer beyond 2^53")));
    QCOMPARE(rawjson::lossyNumbers("[1.10,1.10,1.10]", 2).size(), 2);
}

QTEST_GUILESS_MAIN(TestUpstreamConfig)
#include "tst_upstream_config.moc"
