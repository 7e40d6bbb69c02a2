// The config file: one table of valid keys (ConfigKeys.h), one raw INI scan with lines
// (IniScan.h), every value checked; and the pure [biz.*]-against-records warnings
// (BizTypeCheck.h). Exact messages: each names file, line, key and the nearest valid key.
#include "BizTypeCheck.h"
#include "ConfigKeys.h"
#include "WorkspaceConfig.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include "IniFile.h"

#include <QTest>

using namespace triage;

namespace {

QString writeIni(const QTemporaryDir &dir, const QByteArray &content)
{
    return triage::test::writeIni(dir, QStringLiteral("triage.ini"), content);
}

/// The error of loading `content`, with the file's path replaced by "P".
QString loadError(const QByteArray &content)
{
    QTemporaryDir dir;
    const QString path = writeIni(dir, content);
    QString error;
    if (WorkspaceConfig::fromIniFile(path, &error))
        return QStringLiteral("(accepted)");
    return error.replace(path, QStringLiteral("P"));
}

} // namespace

class TstConfigFile : public QObject {
    Q_OBJECT
private slots:
    void issueTypos();
    void unknownSectionsAndKeys_data();
    void unknownSectionsAndKeys();
    void notIni_data();
    void notIni();
    void values_data();
    void values();
    void parserErrorsGetTheirLine();
    void validFileKeepsRawValues();
    void exampleDocumentsEveryKey();
    void exampleUncommentedIsValid();
    void nearestWord();
    void bizTypeWarnings();
    void bizTypeWarningsDemoAndDefaults();
    void schemaMapErrors_data();
    void schemaMapErrors();
    void schemaMapShop();
};

void TstConfigFile::issueTypos()
{
    // The file that ran with exit 0 and let init-schema write.
    QCOMPARE(loadError("[console]\nread_onyl=true\n[biz.ticket_create]\nprocessing_timout=5\n"
                       "upstream_query_ulr=http://127.0.0.1:9/tickets?idem_key={idem_key}\n"),
             QStringLiteral("config P:2: unknown key \"read_onyl\" in [console] (did you mean read_only?)\n"
                            "config P:4: unknown key \"processing_timout\" in [biz.ticket_create] (did you mean processing_timeout?)\n"
                            "config P:5: unknown key \"upstream_query_ulr\" in [biz.ticket_create] (did you mean upstream_query_url?)"));
}

void TstConfigFile::unknownSectionsAndKeys_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("error");
    const QByteArray comp = "[biz.t]\nupstream_base_url=http://127.0.0.1:9\ncompensation_cancel_ticket_url=/t/{ticket_id}/cancel\n";
    QTest::newRow("section typo") << QByteArray("[consol]\noperator=alice\n")
                                  << "config P:1: unknown section [consol] (did you mean [console]?)";
    QTest::newRow("biz prefix typo") << QByteArray("[bizz.ticket_create]\nprocessing_timeout=5\n")
                                     << "config P:1: unknown section [bizz.ticket_create] (did you mean [biz.ticket_create]?)";
    QTest::newRow("plural") << QByteArray("[tickets]\nurl=sqlite:///tmp/x.db\n")
                            << "config P:1: unknown section [tickets] (did you mean [ticket]?)";
    QTest::newRow("General") << QByteArray("[General]\nread_only=true\n")
                             << "config P:1: unknown section [General] (did you mean [biz.General]?)";
    QTest::newRow("key case") << QByteArray("[console]\nRead_Only=true\n")
                              << "config P:2: unknown key \"Read_Only\" in [console] (did you mean read_only?)";
    QTest::newRow("key of another section") << QByteArray("[console]\nurl=sqlite:///tmp/x.db\n")
                                            << "config P:2: unknown key \"url\" in [console]: url belongs in [idempotency], [intent] or [ticket]";
    QTest::newRow("console key in biz") << QByteArray("[biz.x]\nread_only=true\n")
                                        << "config P:2: unknown key \"read_only\" in [biz.x]: read_only belongs in [console]";
    QTest::newRow("biz key in connection") << QByteArray("[ticket]\nprocessing_timeout=5\n")
                                           << "config P:2: unknown key \"processing_timeout\" in [ticket]: processing_timeout belongs in [console] or [biz.<biz_type>]";
    QTest::newRow("compensation suffix") << comp + "compensation_cancel_ticket_metod=POST\n"
                                         << "config P:4: unknown key \"compensation_cancel_ticket_metod\" in [biz.t] (did you mean compensation_cancel_ticket_method?)";
    QTest::newRow("compensation action") << comp + "compensation_cancel_tikcet_timeout_ms=5000\n"
                                         << "config P:4: unknown key \"compensation_cancel_tikcet_timeout_ms\" in [biz.t]: no "
                                            "compensation_cancel_tikcet_url in this section configures the action \"cancel_tikcet\" "
                                            "(did you mean compensation_cancel_ticket_timeout_ms?)";
    QTest::newRow("compensation without url") << QByteArray("[biz.t]\ncompensation_cancel_ticket_method=POST\n")
                                              << "config P:2: unknown key \"compensation_cancel_ticket_method\" in [biz.t]: no "
                                                 "compensation_cancel_ticket_url in this section configures the action \"cancel_ticket\" "
                                                 "(add compensation_cancel_ticket_url or remove the key)";
    QTest::newRow("compensation prefix") << QByteArray("[biz.t]\nupstream_base_url=http://127.0.0.1:9\ncompensaton_cancel_ticket_url=/x\n")
                                         << "config P:3: unknown key \"compensaton_cancel_ticket_url\" in [biz.t] (did you mean compensation_cancel_ticket_url?)";
    QTest::newRow("compensation action name") << QByteArray("[biz.t]\nupstream_base_url=http://127.0.0.1:9\ncompensation_cancel ticket_url=/x\n")
                                              << "config P:3: [biz.t] compensation_cancel ticket_url: an action name has 1 to 32 letters, digits, \"_\" or \"-\"";
    QTest::newRow("set twice") << QByteArray("[console]\nread_only=true\n[biz.t]\n[console]\nread_only=false\n")
                               << "config P:5: [console] read_only is set twice (first on line 2): keep one";
    QTest::newRow("outside any section") << QByteArray("read_only=true\n[console]\n")
                                         << "config P:1: key \"read_only\" is outside any [section]";
    QTest::newRow("empty biz_type") << QByteArray("[biz.]\nprocessing_timeout=5\n")
                                    << "config P:1: [biz.] names no biz_type (write [biz.<biz_type>])";
    QTest::newRow("biz_type with a slash") << QByteArray("[biz.a/b]\nprocessing_timeout=5\n")
                                           << "config P:1: [biz.a/b]: a biz_type has 1 to 32 letters, digits, \"_\", \"-\", \".\" or \":\"";
    QTest::newRow("biz_type too long") << QByteArray("[biz.abcdefghijklmnopqrstuvwxyz0123456]\n")
                                       << "config P:1: [biz.abcdefghijklmnopqrstuvwxyz0123456]: a biz_type has 1 to 32 letters, digits, \"_\", \"-\", \".\" or \":\"";
}

void TstConfigFile::unknownSectionsAndKeys()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, error);
    QCOMPARE(loadError(content), error);
}

void TstConfigFile::notIni_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("error");
    QTest::newRow("plain line") << QByteArray("[console]\njust a line\n")
                                << "config P:2: not a valid INI file: expected [section], key=value or a ; comment, found \"just a line\"";
    QTest::newRow("hash comment") << QByteArray("# Triage\n[console]\n")
                                  << "config P:1: not a valid INI file: \"#\" does not start a comment in this INI format: use \";\"";
    QTest::newRow("open header") << QByteArray("[console\nread_only=true\n")
                                 << "config P:1: not a valid INI file: \"[console\" has no closing \"]\"";
    QTest::newRow("empty header") << QByteArray("[]\nread_only=true\n") << "config P:1: not a valid INI file: \"[]\" names no section";
    QTest::newRow("text after header") << QByteArray("[console] x\n")
                                       << "config P:1: not a valid INI file: text after \"[console]\": \"x\"";
    QTest::newRow("no key") << QByteArray("[console]\n=true\n") << "config P:2: not a valid INI file: no key before \"=\" in \"=true\"";
    QTest::newRow("open quote") << QByteArray("[console]\noperator=\"alice\n[ticket]\nurl=sqlite:///tmp/x.db\n")
                                << "config P:2: not a valid INI file: the value of \"operator\" opens a quote that is never closed";
    QTest::newRow("text after quote") << QByteArray("[console]\noperator=\"alice\" x\n")
                                      << "config P:2: not a valid INI file: text after the closing quote of the value of \"operator\"";
    QTest::newRow("BOM") << QByteArray("\xEF\xBB\xBF[console]\nread_only=true\n")
                         << "config P:1: not a valid INI file: the file starts with a byte-order mark: save it as UTF-8 without one";
    QTest::newRow("UTF-16") << QByteArray("\xFF\xFE[\0c\0]\0", 8) << "config P:1: not a valid INI file: the file is UTF-16 text: save it as UTF-8";
    QTest::newRow("Latin-1") << QByteArray("[console]\noperator=Z\xFCrich\n") << "config P:2: not a valid INI file: the line is not UTF-8 text";
    QTest::newRow("binary") << QByteArray("\x7f" "ELF\x02\x01\x01\n", 8)
                            << "config P:1: not a valid INI file: expected [section], key=value or a ; comment, found \"\x7f" "ELF\x02\x01\x01\"";
    QTest::newRow("quote inside an unquoted value") << QByteArray("[console]\noperator=O\"Brien\"\n")
                                                    << "config P:2: [console] operator: the INI reader drops a '\"' inside an unquoted value: "
                                                       "quote the whole value (\"...\") and write \\\" for each quote in it";
    QTest::newRow("two problems") << QByteArray("[console]\nread_only\n[biz.t]\nprocessing_timeout=0\n")
                                  << "config P:2: not a valid INI file: expected [section], key=value or a ; comment, found \"read_only\"\n"
                                     "config P:4: [biz.t] processing_timeout: must be a positive number of seconds, not \"0\"";
}

void TstConfigFile::notIni()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, error);
    QCOMPARE(loadError(content), error);
}

void TstConfigFile::values_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("error");
    auto row = [](const char *name, const QByteArray &section, const QByteArray &line, const QString &message) {
        QTest::newRow(name) << section + "\n" + line + "\n" << QStringLiteral("config P:2: ") + message;
    };
    const QByteArray biz = "[biz.t]";
    row("console timeout zero", "[console]", "processing_timeout=0", "[console] processing_timeout: must be a positive number of seconds, not \"0\"");
    row("console timeout unit", "[console]", "processing_timeout=5min", "[console] processing_timeout: must be a positive number of seconds, not \"5min\"");
    row("console timeout beyond int", "[console]", "processing_timeout=2147483648", "[console] processing_timeout: must be a positive number of seconds, not \"2147483648\"");
    row("read_only", "[console]", "read_only=maybe", "[console] read_only: must be true or false, not \"maybe\"");
    row("read_only empty", "[console]", "read_only=", "[console] read_only: must be true or false, not \"\"");
    row("operator length", "[console]", "operator=" + QByteArray(65, 'a'), "[console] operator: must have at most 64 characters");
    // Read replicas (DESIGN.md §9 "Read replicas"): a real replica of the same kind, no password.
    row("replica sqlite", "[ticket]", "replica_url=sqlite:///tmp/replica.db",
        "[ticket] replica_url: SQLite has no replicas; give a PostgreSQL or MariaDB URL");
    row("replica password", "[ticket]", "replica_url=mysql://u:S3cret@127.0.0.1:3307/t",
        "[ticket] replica_url: ticket database URL: a password in the URL is not accepted; set TRIAGE_TICKET_DB_PASSWORD or "
        "TRIAGE_DB_PASSWORD");
    QTest::newRow("replica other kind") << QByteArray("[ticket]\nurl=mysql://u@127.0.0.1:3306/t\nreplica_url=postgresql://u@127.0.0.1:5433/t\n")
                                        << QStringLiteral("config P:3: [ticket] replica_url: the replica must be the same kind of database as url "
                                                          "(mysql, not postgresql)");
    QTest::newRow("replica other database") << QByteArray("[ticket]\nurl=postgresql://u@127.0.0.1:5432/shop\nreplica_url=postgresql://u@127.0.0.1:5433/other\n")
                                            << QStringLiteral("config P:3: [ticket] replica_url: names database \"other\", url names \"shop\": a "
                                                              "PostgreSQL standby has the primary's databases under the same names");
    row("replica_max_lag", "[console]", "replica_max_lag=0", "[console] replica_max_lag: must be a number of seconds between 1 and 3600, not \"0\"");
    row("biz timeout", biz, "processing_timeout=-1", "[biz.t] processing_timeout: must be a positive number of seconds, not \"-1\"");
    row("biz timeout list", biz, "processing_timeout=5,6", "[biz.t] processing_timeout: must be a positive number of seconds, not \"5, 6\"");
    row("failed_evidence", biz, "failed_evidence=maybe", "[biz.t] failed_evidence: must be upstream or ticket_absent, not \"maybe\"");
    row("failed_evidence_max_age", biz, "failed_evidence_max_age=0", "[biz.t] failed_evidence_max_age: must be a positive number of seconds, not \"0\"");
    // Upstream keys are checked even where no upstream_query_url makes the parser read them.
    row("upstream timeout", biz, "upstream_timeout_ms=600001", "[biz.t] upstream_timeout_ms: must be a number of milliseconds between 1 and 600000, not \"600001\"");
    row("upstream method", biz, "upstream_method=DELETE", "[biz.t] upstream_method: must be GET or POST, not \"DELETE\"");
    row("upstream not found", biz, "upstream_not_found=410", "[biz.t] upstream_not_found: must be 404 or empty, not \"410\"");
    row("upstream bool", biz, "upstream_send_idempotency_key=sometimes", "[biz.t] upstream_send_idempotency_key: must be true or false, not \"sometimes\"");
    row("upstream base scheme", biz, "upstream_base_url=ftp://x", "[biz.t] upstream_base_url: must be an http:// or https:// URL with a host");
    row("upstream base credentials", biz, "upstream_base_url=http://u:secret@127.0.0.1", "[biz.t] upstream_base_url: must not carry credentials (use upstream_token_env)");
    row("upstream token", biz, "upstream_token_env=Bearer abc", "[biz.t] upstream_token_env: must be the name of an environment variable, not a token");
    row("upstream ca file", biz, "upstream_ca_file=/nonexistent/ca.pem", "[biz.t] upstream_ca_file: /nonexistent/ca.pem is not a readable file");
    row("upstream headers", biz, "upstream_headers=X-Api-Version 2", "[biz.t] upstream_headers: header \"X-Api-Version 2\" is not \"Name: value\"");
    row("upstream authorization", biz, "upstream_headers=Accept: application/json; Authorization: Bearer abc",
        "[biz.t] upstream_headers: no Authorization header in the file: name an environment variable in upstream_token_env");
    row("upstream result path", biz, "upstream_result_path=data..items", "[biz.t] upstream_result_path: must be dot-separated keys (\"tickets\", \"data.items\") or empty");
    row("upstream key field", biz, "upstream_key_field=", "[biz.t] upstream_key_field: must be a field name or dot-separated keys (\"idem_key\", \"meta.idem_key\")");
    // Compensation keys (an action needs its _url first: line 2 is the url, line 3 the key).
    auto comp = [](const char *name, const QByteArray &line, const QString &message) {
        QTest::newRow(name) << QByteArray("[biz.t]\ncompensation_cancel_ticket_url=http://127.0.0.1:9/t/{ticket_id}/cancel\n") + line + "\n"
                            << QStringLiteral("config P:3: ") + message;
    };
    comp("compensation method", "compensation_cancel_ticket_method=GET",
         "[biz.t] compensation_cancel_ticket_method: must be POST, PUT, PATCH or DELETE, not \"GET\"");
    comp("compensation timeout", "compensation_cancel_ticket_timeout_ms=0",
         "[biz.t] compensation_cancel_ticket_timeout_ms: must be a number of milliseconds between 1 and 600000, not \"0\"");
    comp("compensation honours_key", "compensation_cancel_ticket_honours_key=perhaps",
         "[biz.t] compensation_cancel_ticket_honours_key: must be true or false, not \"perhaps\"");
    comp("compensation body", "compensation_cancel_ticket_body={\"reason\":\"duplicate of {idem_key}\"",
         "[biz.t] compensation_cancel_ticket_body: must be JSON once {ticket_id}, {idem_key} and {tenant} are filled in "
         "(unterminated string at character 27)");
}

void TstConfigFile::values()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, error);
    QCOMPARE(loadError(content), error);
}

void TstConfigFile::parserErrorsGetTheirLine()
{
    // Shapes only a section's parser can judge still come with their line.
    QCOMPARE(loadError("[console]\nprocessing_timeout=60\n[biz.t]\ntenant_pattern=ticket:create\n"),
             QStringLiteral("config P:4: [biz.t] tenant_pattern must contain {tenant} exactly once"));
    QCOMPARE(loadError("[biz.t]\nupstream_query_url=/tickets?k={idem_key}\n"),
             QStringLiteral("config P:2: [biz.t] upstream_query_url: upstream_query_url is relative and upstream_base_url is not set"));
    QCOMPARE(loadError("[ticket]\nurl=ftp://h/x\n"),
             QStringLiteral("config P:2: [ticket] url: ticket database URL: unknown scheme \"ftp\" (use postgresql://, mysql:// or sqlite:///)"));
}

void TstConfigFile::validFileKeepsRawValues()
{
    QTemporaryDir dir;
    const QString path = writeIni(dir, "; comment\n[console]\noperator=Smith, John\n"
                                       "[biz.t] ; trailing comment\nprocessing_timeout=60 ; one minute\n"
                                       "upstream_base_url=http://127.0.0.1:9\n"
                                       "compensation_cancel_ticket_url=/t/{ticket_id}/cancel\n"
                                       "compensation_cancel_ticket_body={\"reason\":\"duplicate of {idem_key}\", \"by\":\"triage\"}\n"
                                       "[biz.u]\n");
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->operatorName, QStringLiteral("Smith, John"));
    QCOMPARE(c->bizType(QStringLiteral("t")).processingTimeoutS, 60);
    // QSettings alone reads {reason:duplicate of {idem_key}, by:triage} (quotes dropped, split at ',').
    QCOMPARE(c->compensations.value(QStringLiteral("t")).value(QStringLiteral("cancel_ticket")).bodyTemplate,
             QStringLiteral("{\"reason\":\"duplicate of {idem_key}\", \"by\":\"triage\"}"));
    QCOMPARE(c->sourceFile, path);
    QCOMPARE(c->sectionLines.value(QStringLiteral("console")), 2);
    QCOMPARE(c->sectionLines.value(QStringLiteral("biz.t")), 4);
    QCOMPARE(c->sectionLines.value(QStringLiteral("biz.u")), 9);
}

void TstConfigFile::exampleDocumentsEveryKey()
{
    QFile f(QStringLiteral(TRIAGE_SOURCE_DIR "/resources/triage.example.ini"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    for (const ConfigKey &k : configKeys()) {
        const QString name = k.compensationSuffix ? QStringLiteral("compensation_cancel_ticket_") + k.name : k.name;
        const QRegularExpression line(QStringLiteral("^(; )?%1=").arg(QRegularExpression::escape(name)),
                                      QRegularExpression::MultilineOption);
        QVERIFY2(line.match(text).hasMatch(), qPrintable(name + QStringLiteral(" is not in resources/triage.example.ini")));
    }
}

void TstConfigFile::exampleUncommentedIsValid()
{
    // Every key the example shows, uncommented, is accepted as written (the CA file must
    // exist: any readable file stands in for it).
    QFile f(QStringLiteral(TRIAGE_SOURCE_DIR "/resources/triage.example.ini"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    QStringList names;
    for (const ConfigKey &k : configKeys())
        names << (k.compensationSuffix ? QStringLiteral("compensation_cancel_ticket_") + k.name : k.name);
    int uncommented = 0;
    bool inMap = false; // the mapping sections show their defaults and stay commented
    for (QString &l : lines) {
        if (l.startsWith(QLatin1Char('[')))
            inMap = l.endsWith(QLatin1String(".map]"));
        if (!l.startsWith(QLatin1String("; ")) || inMap)
            continue;
        const QString body = l.mid(2);
        const QString key = body.section(QLatin1Char('='), 0, 0);
        if (!body.contains(QLatin1Char('=')) || !names.contains(key))
            continue;
        l = key == QLatin1String("upstream_ca_file") ? QStringLiteral("upstream_ca_file=" TRIAGE_SOURCE_DIR "/resources/triage.example.ini")
                                                     : body;
        ++uncommented;
    }
    QCOMPARE(uncommented, 33); // every commented-out key= line of the example (four_eyes: 24; environment, name: 26; replicas: 28; push: 31; lookback: 32; four_eyes_amount_over: 33)
    QTemporaryDir dir;
    const QString path = writeIni(dir, lines.join(QLatin1Char('\n')).toUtf8());
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->operatorName, QStringLiteral("alice"));
    QCOMPARE(c->environment, Environment::Production);
    QCOMPARE(c->profileName, QStringLiteral("shop-prod"));
    QCOMPARE(c->replicaMaxLagS, 5);
    QCOMPARE(c->replicas.value(int(DbRole::Idempotency)).host, QStringLiteral("db-replica.example.internal"));
    QCOMPARE(c->replicas.size(), 1);
    QCOMPARE(c->upstreams.value(QStringLiteral("ticket_create")).headers.size(), 2);
    QCOMPARE(c->compensations.value(QStringLiteral("ticket_create")).value(QStringLiteral("cancel_ticket")).bodyTemplate,
             QStringLiteral("{\"reason\":\"duplicate of {idem_key}\"}"));
}

void TstConfigFile::nearestWord()
{
    QCOMPARE(editDistance(QStringLiteral("read_onyl"), QStringLiteral("read_only")), 1); // a transposition counts 1
    QCOMPARE(editDistance(QStringLiteral("processing_timout"), QStringLiteral("processing_timeout")), 1);
    QCOMPARE(editDistance(QString(), QStringLiteral("abc")), 3);
    QCOMPARE(triage::nearestWord(QStringLiteral("ticket_craete"), {QStringLiteral("notify_send"), QStringLiteral("ticket_create")}),
             QStringLiteral("ticket_create"));
    QCOMPARE(triage::nearestWord(QStringLiteral("x"), {}), QString());
}

void TstConfigFile::bizTypeWarnings()
{
    WorkspaceConfig c;
    c.sourceFile = QStringLiteral("/etc/triage/triage.ini");
    c.defaultProcessingTimeoutS = 300;
    c.bizTypes.insert(QStringLiteral("ticket_craete"), BizTypeConfig{3600});
    c.bizTypes.insert(QStringLiteral("payment_capture"), BizTypeConfig{600});
    c.bizTypes.insert(QStringLiteral("zzz_unrelated"), BizTypeConfig{60});
    c.sectionLines = {{QStringLiteral("biz.ticket_craete"), 12}, {QStringLiteral("biz.payment_capture"), 20},
                      {QStringLiteral("biz.zzz_unrelated"), 5}};
    BizTypeCensus census;
    census.bizTypes = {QStringLiteral("notify_send"), QStringLiteral("payment_capture"), QStringLiteral("ticket_create")};
    QCOMPARE(bizTypeSectionWarnings(c, census),
             (QStringList{
                 QStringLiteral("config /etc/triage/triage.ini:5: [biz.zzz_unrelated]: no idempotency record has biz_type "
                                "\"zzz_unrelated\", so its settings apply to nothing"),
                 QStringLiteral("config /etc/triage/triage.ini:12: [biz.ticket_craete]: no idempotency record has biz_type "
                                "\"ticket_craete\", so its settings apply to nothing (did you mean ticket_create?)"),
                 QStringLiteral("config /etc/triage/triage.ini: biz_type \"notify_send\" has idempotency records but no "
                                "[biz.notify_send] section: its records use processing_timeout 300 s and no upstream"),
                 QStringLiteral("config /etc/triage/triage.ini: biz_type \"ticket_create\" has idempotency records but no "
                                "[biz.ticket_create] section: its records use processing_timeout 300 s and no upstream"),
             }));

    // A census cut at its limit: sections beyond it were looked up one by one.
    BizTypeCensus cut;
    cut.bizTypes = {QStringLiteral("a_type"), QStringLiteral("b_type")};
    cut.complete = false;
    cut.configuredWithRecords = {QStringLiteral("payment_capture"), QStringLiteral("ticket_craete"), QStringLiteral("zzz_unrelated")};
    QCOMPARE(bizTypeSectionWarnings(c, cut),
             (QStringList{
                 QStringLiteral("config /etc/triage/triage.ini: biz_type \"a_type\" has idempotency records but no [biz.a_type] "
                                "section: its records use processing_timeout 300 s and no upstream"),
                 QStringLiteral("config /etc/triage/triage.ini: biz_type \"b_type\" has idempotency records but no [biz.b_type] "
                                "section: its records use processing_timeout 300 s and no upstream"),
                 QStringLiteral("config /etc/triage/triage.ini: the idempotency records have more than 2 biz_types: only the "
                                "first 2 (in the database's order) were checked for a [biz.*] section"),
             }));

    // No record at all: nothing to compare.
    QCOMPARE(bizTypeSectionWarnings(c, BizTypeCensus{}), QStringList());
}

void TstConfigFile::bizTypeWarningsDemoAndDefaults()
{
    // The demo's own settings cover the demo's biz types.
    WorkspaceConfig demo;
    demo.isDemo = true;
    demo.bizTypes.insert(QStringLiteral("ticket_create"), BizTypeConfig{300});
    BizTypeCensus census;
    census.bizTypes = {QStringLiteral("refund_issue"), QStringLiteral("ticket_create")};
    QCOMPARE(bizTypeSectionWarnings(demo, census),
             QStringList{QStringLiteral("demo settings: biz_type \"refund_issue\" has idempotency records but no "
                                        "[biz.refund_issue] section: its records use processing_timeout 300 s and no upstream")});
    // Without a config file every biz_type uses the defaults by design: nothing to say.
    WorkspaceConfig urlsOnly;
    QVERIFY(!checksBizTypeSections(urlsOnly));
    QCOMPARE(bizTypeSectionWarnings(urlsOnly, census), QStringList());
}


void TstConfigFile::schemaMapErrors_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("error");
    QTest::newRow("bad table name") << QByteArray("[idempotency.map]\ntable=idem records\n")
                                    << "config P:2: [idempotency.map] table \"idem records\" is not a table name the console "
                                       "accepts (letters, digits, \"_\" and \"$\", not starting with a digit, at most 63 "
                                       "characters; schema.table allowed)";
    QTest::newRow("schema on a column") << QByteArray("[ticket.map]\nid=o.id\n")
                                        << "config P:2: [ticket.map] id \"o.id\" is not a column name the console accepts "
                                           "(letters, digits, \"_\" and \"$\", not starting with a digit, at most 63 characters)";
    QTest::newRow("required column empty") << QByteArray("[intent.map]\nstatus=\n")
                                           << "config P:2: [intent.map] status needs a name (this column cannot be left out)";
    QTest::newRow("unknown key") << QByteArray("[ticket.map]\nstatus_canceled=voided\n")
                                 << "config P:2: unknown key \"status_canceled\" in [ticket.map] (did you mean status_cancelled?)";
    QTest::newRow("time") << QByteArray("[intent.map]\ntime=epoch_us\n")
                          << "config P:2: [intent.map] time: must be native, local, epoch_s, epoch_ms or iso_text, not \"epoch_us\"";
    QTest::newRow("local without zone") << QByteArray("[ticket.map]\ntime=local\n")
                                        << "config P:2: [ticket.map] time local needs time_zone (the zone the columns' local "
                                           "times are in)";
    QTest::newRow("zone without local") << QByteArray("[ticket.map]\ntime_zone=+08:00\n")
                                        << "config P:2: [ticket.map] time_zone applies only with time = local";
    QTest::newRow("bad zone") << QByteArray("[ticket.map]\ntime=local\ntime_zone=UTC+8\n")
                              << "config P:3: [ticket.map] time_zone must be an offset such as +08:00 or a zone name such as "
                                 "Asia/Shanghai, not \"UTC+8\"";
    QTest::newRow("zone name on sqlite") << QByteArray("[ticket]\nurl=sqlite:///tmp/x.db\n[ticket.map]\ntime=local\n"
                                                      "time_zone=Asia/Shanghai\n")
                                         << "config P:5: [ticket.map] time_zone \"Asia/Shanghai\" is a zone name: on sqlite "
                                            "give the offset (such as +08:00)";
    QTest::newRow("integer spelling") << QByteArray("[idempotency.map]\nstatus_success=DONE\n")
                                      << "config P:2: [idempotency.map] status_success \"DONE\" is not an integer (set "
                                         "status_type = text for text statuses)";
    QTest::newRow("text needs all") << QByteArray("[idempotency.map]\nstatus_type=text\nstatus_processing=PENDING\n"
                                                  "status_success=DONE\n")
                                    << "config P:1: [idempotency.map] status_failed is missing: with text statuses every "
                                       "status needs its spelling";
    QTest::newRow("text without spellings") << QByteArray("[idempotency.map]\nstatus_type=text\n")
                                            << "config P:2: [idempotency.map] status_type text needs status_processing, "
                                               "status_success and status_failed";
    QTest::newRow("one spelling two statuses")
        << QByteArray("[idempotency.map]\nstatus_type=text\nstatus_ignore_case=true\nstatus_processing=PENDING\n"
                      "status_success=done\nstatus_failed=Done \n")
        << "config P:5: [idempotency.map] status_success \"done\" also spells FAILED: a stored value must mean one status";
    QTest::newRow("no biz_type column") << QByteArray("[idempotency.map]\nbiz_type=\n")
                                        << "config P:2: [idempotency.map] biz_type is empty (no such column): then "
                                           "biz_type_value must name the table's one biz_type";
    QTest::newRow("biz_type_value with a column") << QByteArray("[idempotency.map]\nbiz_type_value=payment\n")
                                                  << "config P:2: [idempotency.map] biz_type_value applies only when "
                                                     "biz_type is empty (the table has no biz_type column)";
    QTest::newRow("ignore case on integers") << QByteArray("[idempotency.map]\nstatus_ignore_case=true\n")
                                             << "config P:2: [idempotency.map] status_ignore_case applies only with "
                                                "status_type = text";
}

void TstConfigFile::schemaMapErrors()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, error);
    QCOMPARE(loadError(content), error);
}

void TstConfigFile::schemaMapShop()
{
    QTemporaryDir dir;
    const QString path = writeIni(dir,
                                  "[idempotency.map]\ntable=billing.idem_requests\nbiz_type=\nbiz_type_value=payment\n"
                                  "status_type=text\nstatus_ignore_case=true\nstatus_processing=PENDING, pending\n"
                                  "status_success=DONE\nstatus_failed=ERROR\nexpire_at=\nversion=\ntenant=tenant\n"
                                  "updated_at=updated_ms\ntime=epoch_ms\n"
                                  "[intent.map]\nstatus_unknown=timeout\n"
                                  "[ticket.map]\ntable=orders\nstatus_cancelled=voided, VOID\ntime=local\ntime_zone=-05:30\n");
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(c, qPrintable(error));
    const SchemaMap &m = c->schema;
    QVERIFY(!m.isDefault());
    QCOMPARE(m.records.table, QStringLiteral("billing.idem_requests"));
    QCOMPARE(m.records.bizType, QString());
    QCOMPARE(m.records.bizTypeValue, QStringLiteral("payment"));
    QCOMPARE(m.records.statuses.spellings.value(QStringLiteral("PROCESSING")),
             (QStringList{QStringLiteral("PENDING"), QStringLiteral("pending")}));
    QCOMPARE(m.records.statuses.decode(QStringLiteral(" Done ")), std::optional<QString>(QStringLiteral("SUCCESS")));
    QCOMPARE(m.records.statuses.decode(QStringLiteral("weird")), std::nullopt);
    // Folding trims spaces only, as the server's UPPER(TRIM(…)) does: a tab is part of the value.
    QCOMPARE(m.records.statuses.decode(QStringLiteral("\tDONE")), std::nullopt);
    QCOMPARE(m.records.statuses.written(QStringLiteral("PROCESSING")), QStringLiteral("PENDING"));
    QCOMPARE(m.records.expireAt, QString());
    QCOMPARE(m.records.version, QString());
    QCOMPARE(m.records.tenant, QStringLiteral("tenant"));
    QCOMPARE(m.records.updatedAt, QStringLiteral("updated_ms"));
    QCOMPARE(m.records.createdAt, QStringLiteral("created_at"));
    QCOMPARE(m.records.time.encoding, TimeEncoding::EpochMillis);
    // Intent statuses not given keep their default spelling.
    QCOMPARE(m.intents.statuses.decode(QStringLiteral("timeout")), std::optional<QString>(QStringLiteral("UNKNOWN")));
    QCOMPARE(m.intents.statuses.decode(QStringLiteral("SUCCEEDED")), std::optional<QString>(QStringLiteral("SUCCEEDED")));
    QCOMPARE(m.intents.statuses.decode(QStringLiteral("UNKNOWN")), std::nullopt);
    QCOMPARE(m.tickets.statuses.decode(QStringLiteral("VOID")), std::optional<QString>(QStringLiteral("CANCELLED")));
    QCOMPARE(m.tickets.statuses.decode(QStringLiteral("void")), std::nullopt); // exact without status_ignore_case
    QCOMPARE(m.tickets.time.zone, QStringLiteral("-05:30"));
    // An empty config keeps the default schema.
    const QString plain = writeIni(dir, "[console]\noperator=alice\n");
    const auto d = WorkspaceConfig::fromIniFile(plain, &error);
    QVERIFY(d);
    QVERIFY(d->schema.isDefault());
}

QTEST_GUILESS_MAIN(TstConfigFile)
#include "tst_config_file.moc"
