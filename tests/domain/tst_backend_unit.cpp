// Pure functions of the backends layer, no database: time text, connection URLs, the INI
// config, JSON text parsing, status spelling, tenant patterns, schema file parsing and the
// merge of two queue sources.

#include "ConnectionProfile.h"
#include "JsonText.h"
#include "Queue.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
#include "Schema.h"
#include "SqlDialect.h"
#include "TimeText.h"
#include "WorkspaceConfig.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include "IniFile.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace triage;

namespace {

constexpr qint64 kT2026 = 1795989307000000; // 2026-11-29T21:55:07Z (computed independently)

/// Restores an environment variable when the test function ends.
class EnvGuard {
public:
    explicit EnvGuard(const char *name) : m_name(name), m_had(qEnvironmentVariableIsSet(name)), m_old(qgetenv(name)) {}
    ~EnvGuard()
    {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char *m_name;
    bool m_had;
    QByteArray m_old;
};

using triage::test::writeIni;

} // namespace

class TstBackendUnit : public QObject {
    Q_OBJECT

private slots:
    // ---- TimeText
    void parseUtcMicros_valid_data();
    void parseUtcMicros_valid();
    void parseUtcMicros_invalid_data();
    void parseUtcMicros_invalid();
    void formatUtcMicros_exact_data();
    void formatUtcMicros_exact();
    void timeText_roundTrip();
    void canonicalTimeText();
    void humanDuration_data();
    void humanDuration();

    // ---- ConnectionProfile
    void fromUrl_valid_data();
    void fromUrl_valid();
    void fromUrl_invalid_data();
    void fromUrl_invalid();
    void fromUrl_displayUrl();
    void fromUrl_connectOptions();
    void passwords();

    // ---- WorkspaceConfig
    void ini_example();
    void ini_invalid_data();
    void ini_invalid();
    void ini_bizTypeDefaults();

    // ---- JsonText
    void json_errorPosition_data();
    void json_errorPosition();
    void json_valid();
    void json_appendString();

    // ---- RecordStatus
    void recordStatus_data();
    void recordStatus();
    void recordStatusFromText();

    // ---- Queue helpers
    void tenantFromKey_data();
    void tenantFromKey();
    void likeLiteral();
    void queueNames();
    void mergeQueuePages_interleaves();
    void mergeQueuePages_newestFirst();
    void mergeQueuePages_crossingInstant();
    void timeSqlCursorAt();

    // ---- Schema files
    void schemaStatements_data();
    void schemaStatements();
};

// ===================================================================== TimeText

void TstBackendUnit::parseUtcMicros_valid_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected");
    const qint64 t = kT2026 + 123456;
    QTest::newRow("epoch") << "1970-01-01T00:00:00Z" << qint64(0);
    QTest::newRow("epoch+1us") << "1970-01-01T00:00:00.000001Z" << qint64(1);
    QTest::newRow("before epoch") << "1969-12-31T23:59:59.999999Z" << qint64(-1);
    QTest::newRow("canonical") << "2026-11-29T21:55:07.123456Z" << t;
    QTest::newRow("space, no zone = UTC") << "2026-11-29 21:55:07.123456" << t;
    QTest::newRow("+00:00") << "2026-11-29T21:55:07.123456+00:00" << t;
    QTest::newRow("PostgreSQL text +00") << "2026-11-29 21:55:07.123456+00" << t;
    QTest::newRow("+05:30") << "2026-11-30T03:25:07.123456+05:30" << t;
    QTest::newRow("+0530") << "2026-11-30T03:25:07.123456+0530" << t;
    QTest::newRow("-08") << "2026-11-29T13:55:07.123456-08" << t;
    QTest::newRow("-03:30 across midnight") << "2026-11-29T18:25:07.123456-03:30" << t;
    QTest::newRow("nanoseconds truncated") << "2026-11-29T21:55:07.123456999Z" << t;
    QTest::newRow("one fractional digit") << "2026-11-29T21:55:07.1Z" << kT2026 + 100000;
    QTest::newRow("no fraction") << "2026-11-29T21:55:07Z" << kT2026;
    QTest::newRow("surrounding spaces") << "  2026-11-29T21:55:07Z  " << kT2026;
    QTest::newRow("leap day 2000") << "2000-02-29T12:00:00Z" << qint64(951825600000000);
    QTest::newRow("year 9999") << "9999-12-31T23:59:59.999999Z" << qint64(253402300799999999);
    QTest::newRow("year 1") << "0001-01-01T00:00:00Z" << qint64(-62135596800000000);
}

void TstBackendUnit::parseUtcMicros_valid()
{
    QFETCH(QString, text);
    QFETCH(qint64, expected);
    const auto t = parseUtcMicros(text);
    QVERIFY2(t.has_value(), qPrintable(text));
    QCOMPARE(*t, expected);
}

void TstBackendUnit::parseUtcMicros_invalid_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("garbage") << "yesterday";
    QTest::newRow("date only") << "2026-11-29";
    QTest::newRow("no seconds") << "2026-11-29T21:55Z";
    QTest::newRow("Feb 30") << "2026-02-30T00:00:00Z";
    QTest::newRow("Feb 29 non-leap") << "2026-02-29T00:00:00Z";
    QTest::newRow("month 13") << "2026-13-01T00:00:00Z";
    QTest::newRow("hour 24") << "2026-11-29T24:00:00Z";
    QTest::newRow("minute 60") << "2026-11-29T21:60:00Z";
    QTest::newRow("second 61") << "2026-11-29T21:55:61Z";
    QTest::newRow("dot without digits") << "2026-11-29T21:55:07.Z";
    QTest::newRow("ten fractional digits") << "2026-11-29T21:55:07.1234567890Z";
    QTest::newRow("double Z") << "2026-11-29T21:55:07ZZ";
    QTest::newRow("zone name") << "2026-11-29T21:55:07 UTC";
    QTest::newRow("offset minutes 99") << "2026-11-29T21:55:07+05:99";
    QTest::newRow("offset hours 24") << "2026-11-29T21:55:07+24:00";
    QTest::newRow("offset one digit") << "2026-11-29T21:55:07+5";
    QTest::newRow("two-digit year") << "26-11-29T21:55:07Z";
    QTest::newRow("year 0") << "0000-01-01T00:00:00Z";
    QTest::newRow("slashes") << "2026/11/29 21:55:07";
    QTest::newRow("trailing text") << "2026-11-29T21:55:07Z and more";
}

void TstBackendUnit::parseUtcMicros_invalid()
{
    QFETCH(QString, text);
    const auto t = parseUtcMicros(text);
    QVERIFY2(!t.has_value(), qPrintable(QStringLiteral("accepted \"%1\" as %2").arg(text).arg(t.value_or(0))));
}

void TstBackendUnit::formatUtcMicros_exact_data()
{
    QTest::addColumn<qint64>("micros");
    QTest::addColumn<QString>("expected");
    QTest::newRow("epoch") << qint64(0) << "1970-01-01T00:00:00.000000Z";
    QTest::newRow("-1us") << qint64(-1) << "1969-12-31T23:59:59.999999Z";
    QTest::newRow("-1s") << qint64(-1000000) << "1969-12-31T23:59:59.000000Z";
    QTest::newRow("2026") << kT2026 + 123456 << "2026-11-29T21:55:07.123456Z";
    QTest::newRow("2026 +1us") << kT2026 + 1 << "2026-11-29T21:55:07.000001Z";
    QTest::newRow("2026 .999999") << kT2026 + 999999 << "2026-11-29T21:55:07.999999Z";
    QTest::newRow("leap day") << qint64(951825600000000) << "2000-02-29T12:00:00.000000Z";
    QTest::newRow("year 9999") << qint64(253402300799999999) << "9999-12-31T23:59:59.999999Z";
    QTest::newRow("year 1") << qint64(-62135596800000000) << "0001-01-01T00:00:00.000000Z";
}

void TstBackendUnit::formatUtcMicros_exact()
{
    QFETCH(qint64, micros);
    QFETCH(QString, expected);
    QCOMPARE(formatUtcMicros(micros), expected);
}

void TstBackendUnit::timeText_roundTrip()
{
    // format → parse → format is the identity for every microsecond value between years 1 and 9999.
    QRandomGenerator rng(42);
    const qint64 lo = -62135596800000000, hi = 253402300799999999;
    for (int i = 0; i < 20000; ++i) {
        const qint64 t = lo + qint64(rng.bounded(double(hi - lo)));
        const QString text = formatUtcMicros(t);
        const auto back = parseUtcMicros(text);
        QVERIFY2(back.has_value(), qPrintable(text));
        QCOMPARE(*back, t);
    }
    // Offsets: the same instant written in different zones parses to the same value.
    for (const char *s : {"2026-03-29T01:30:00.5+00:00", "2026-03-29T03:30:00.5+02:00", "2026-03-28T20:30:00.5-05:00",
                          "2026-03-29T07:00:00.5+05:30", "2026-03-29T15:15:00.5+13:45"})
        QCOMPARE(formatUtcMicros(*parseUtcMicros(QString::fromLatin1(s))), QStringLiteral("2026-03-29T01:30:00.500000Z"));
}

void TstBackendUnit::canonicalTimeText()
{
    QVERIFY(triage::canonicalTimeText(QVariant()).isNull());
    QVERIFY(triage::canonicalTimeText(QVariant(QMetaType(QMetaType::QString))).isNull());
    QCOMPARE(triage::canonicalTimeText(QStringLiteral("2026-11-29 21:55:07+00")), QStringLiteral("2026-11-29T21:55:07.000000Z"));
    QCOMPARE(triage::canonicalTimeText(QStringLiteral("2026-11-29T21:55:07.123Z")), QStringLiteral("2026-11-29T21:55:07.123000Z"));
    QCOMPARE(triage::canonicalTimeText(QStringLiteral("2026-11-30T03:25:07.123456+05:30")),
             QStringLiteral("2026-11-29T21:55:07.123456Z"));
    // Unparsable text comes back unchanged, so nothing is lost.
    QCOMPARE(triage::canonicalTimeText(QStringLiteral("0000-00-00 00:00:00")), QStringLiteral("0000-00-00 00:00:00"));
    QCOMPARE(triage::canonicalTimeText(QStringLiteral("")), QStringLiteral(""));
}

void TstBackendUnit::humanDuration_data()
{
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("expected");
    QTest::newRow("0") << 0.0 << "0ms";
    QTest::newRow("850ms") << 0.85 << "850ms";
    QTest::newRow("5s") << 5.9 << "5s";
    QTest::newRow("5m 12s") << 312.0 << "5m 12s";
    QTest::newRow("1h 0m") << 3600.0 << "1h 0m";
    QTest::newRow("3d 4h") << 3 * 86400.0 + 4 * 3600 + 5 << "3d 4h";
    QTest::newRow("-5s") << -5.0 << "-5s";
    QTest::newRow("-850ms") << -0.85 << "-850ms";
    QTest::newRow("nan") << std::nan("") << "?";
}

void TstBackendUnit::humanDuration()
{
    QFETCH(double, seconds);
    QFETCH(QString, expected);
    QCOMPARE(triage::humanDuration(seconds), expected);
}

// ===================================================================== ConnectionProfile

void TstBackendUnit::fromUrl_valid_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<int>("dialect");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("database");
    QTest::addColumn<QString>("user");
    QTest::addColumn<int>("statementTimeoutMs");
    QTest::addColumn<int>("connectTimeoutS");
    const int pg = int(Dialect::PostgreSql), my = int(Dialect::MySql), lite = int(Dialect::Sqlite);
    QTest::newRow("postgresql") << "postgresql://triage@db.example:5433/orders" << pg << "db.example" << 5433 << "orders"
                                << "triage" << 0 << 10;
    QTest::newRow("postgres, default port") << "postgres://u@h/db" << pg << "h" << 5432 << "db" << "u" << 0 << 10;
    QTest::newRow("upper-case scheme") << "PostgreSQL://u@h/db" << pg << "h" << 5432 << "db" << "u" << 0 << 10;
    QTest::newRow("no user") << "postgresql://h:1/db" << pg << "h" << 1 << "db" << "" << 0 << 10;
    QTest::newRow("mysql, default port") << "mysql://u@h/db" << my << "h" << 3306 << "db" << "u" << 0 << 10;
    QTest::newRow("mariadb") << "mariadb://u@h:3307/db" << my << "h" << 3307 << "db" << "u" << 0 << 10;
    QTest::newRow("sqlite") << "sqlite:///var/lib/triage/demo.db" << lite << "" << 0 << "/var/lib/triage/demo.db" << ""
                            << 0 << 10;
    QTest::newRow("timeout plain ms") << "postgresql://u@h/db?statement_timeout=30000" << pg << "h" << 5432 << "db" << "u"
                                      << 30000 << 10;
    QTest::newRow("timeout 30s") << "postgresql://u@h/db?statement_timeout=30s" << pg << "h" << 5432 << "db" << "u" << 30000
                                 << 10;
    QTest::newRow("timeout 500ms") << "mysql://u@h/db?statement_timeout=500ms" << my << "h" << 3306 << "db" << "u" << 500
                                   << 10;
    QTest::newRow("timeout 2min") << "mysql://u@h/db?statement_timeout=2min" << my << "h" << 3306 << "db" << "u" << 120000
                                  << 10;
    QTest::newRow("timeout 0 = none") << "mysql://u@h/db?statement_timeout=0" << my << "h" << 3306 << "db" << "u" << 0 << 10;
    QTest::newRow("connect_timeout") << "postgresql://u@h/db?connect_timeout=3&sslmode=require" << pg << "h" << 5432 << "db"
                                     << "u" << 0 << 3;
    QTest::newRow("sqlite with timeout") << "sqlite:///tmp/x.db?statement_timeout=5s" << lite << "" << 0 << "/tmp/x.db" << ""
                                         << 5000 << 10;
}

void TstBackendUnit::fromUrl_valid()
{
    QFETCH(QString, url);
    QFETCH(int, dialect);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, database);
    QFETCH(QString, user);
    QFETCH(int, statementTimeoutMs);
    QFETCH(int, connectTimeoutS);
    QString error;
    const auto p = ConnectionProfile::fromUrl(url, DbRole::Intent, &error);
    QVERIFY2(p.has_value(), qPrintable(error));
    QCOMPARE(int(p->dialect), dialect);
    QCOMPARE(p->role, DbRole::Intent);
    QCOMPARE(p->host, host);
    QCOMPARE(p->port, port);
    QCOMPARE(p->database, database);
    QCOMPARE(p->user, user);
    QCOMPARE(p->statementTimeoutMs, statementTimeoutMs);
    QCOMPARE(p->connectTimeoutS, connectTimeoutS);
}

void TstBackendUnit::fromUrl_invalid_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<int>("role");
    QTest::addColumn<QStringList>("mustContain");
    QTest::addColumn<QString>("mustNotContain");
    const int idem = int(DbRole::Idempotency), ticket = int(DbRole::Ticket);
    QTest::newRow("unknown scheme") << "oracle://u@h/db" << idem << QStringList{"idempotency database URL", "unknown scheme \"oracle\""} << "";
    QTest::newRow("http scheme") << "http://h/db" << idem << QStringList{"unknown scheme \"http\""} << "";
    QTest::newRow("password postgresql") << "postgresql://u:s3cret@h/db" << idem
                                         << QStringList{"password", "TRIAGE_IDEMPOTENCY_DB_PASSWORD", "TRIAGE_DB_PASSWORD"}
                                         << "s3cret";
    QTest::newRow("password mysql, ticket role") << "mysql://u:s3cret@h/db" << ticket
                                                 << QStringList{"ticket database URL", "password", "TRIAGE_TICKET_DB_PASSWORD"}
                                                 << "s3cret";
    QTest::newRow("password in an invalid URL") << "postgresql://u:s3cr%zz@h/db" << idem << QStringList{"idempotency database URL"}
                                                << "s3cr";
    QTest::newRow("password in a URL with a bad port") << "mysql://u:s3cret@h:99999999/db" << idem
                                                       << QStringList{"idempotency database URL"} << "s3cret";
    QTest::newRow("statement_timeout text") << "postgresql://u@h/db?statement_timeout=abc" << idem
                                            << QStringList{"statement_timeout \"abc\""} << "";
    QTest::newRow("statement_timeout negative") << "postgresql://u@h/db?statement_timeout=-5" << idem
                                                << QStringList{"statement_timeout"} << "";
    QTest::newRow("statement_timeout hours") << "postgresql://u@h/db?statement_timeout=1h" << idem
                                             << QStringList{"statement_timeout \"1h\""} << "";
    QTest::newRow("statement_timeout overflow") << "postgresql://u@h/db?statement_timeout=99999999min" << idem
                                                << QStringList{"statement_timeout"} << "";
    QTest::newRow("connect_timeout 0") << "mysql://u@h/db?connect_timeout=0" << idem << QStringList{"connect_timeout \"0\""} << "";
    QTest::newRow("connect_timeout text") << "mysql://u@h/db?connect_timeout=soon" << idem
                                          << QStringList{"connect_timeout \"soon\""} << "";
    QTest::newRow("unknown parameter") << "postgresql://u@h/db?sslmode=require&foo=bar" << idem
                                       << QStringList{"unknown parameter \"foo\""} << "";
    QTest::newRow("password parameter") << "postgresql://u@h/db?password=s3cret" << idem
                                        << QStringList{"unknown parameter \"password\""} << "s3cret";
    QTest::newRow("sqlite relative (host form)") << "sqlite://relative.db" << idem << QStringList{"absolute path"} << "";
    QTest::newRow("sqlite relative (path form)") << "sqlite:relative.db" << idem << QStringList{"absolute path"} << "";
    QTest::newRow("sqlite relative dir") << "sqlite:data/x.db" << idem << QStringList{"absolute path"} << "";
    QTest::newRow("sqlite root only") << "sqlite:///" << idem << QStringList{"absolute path"} << "";
    QTest::newRow("no host") << "postgresql:///db" << idem << QStringList{"no host"} << "";
    QTest::newRow("no database") << "mysql://u@h" << idem << QStringList{"no database name"} << "";
    QTest::newRow("no database, slash") << "mysql://u@h:3306/" << idem << QStringList{"no database name"} << "";
    QTest::newRow("not a URL") << "just some words" << idem << QStringList{"not a URL"} << "";
    QTest::newRow("empty") << "" << idem << QStringList{"not a URL"} << "";
}

void TstBackendUnit::fromUrl_invalid()
{
    QFETCH(QString, url);
    QFETCH(int, role);
    QFETCH(QStringList, mustContain);
    QFETCH(QString, mustNotContain);
    QString error;
    const auto p = ConnectionProfile::fromUrl(url, DbRole(role), &error);
    QVERIFY2(!p.has_value(), qPrintable(QStringLiteral("accepted %1").arg(url)));
    QVERIFY(error.startsWith(roleTitle(DbRole(role)) + QStringLiteral(" URL: ")));
    for (const QString &s : mustContain)
        QVERIFY2(error.contains(s), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(s, error)));
    if (!mustNotContain.isEmpty())
        QVERIFY2(!error.contains(mustNotContain), qPrintable(QStringLiteral("secret leaked: %1").arg(error)));
}

void TstBackendUnit::fromUrl_displayUrl()
{
    QString error;
    const QString pg = QStringLiteral("postgresql://triage@127.0.0.1:55432/triage?sslmode=require&statement_timeout=30s");
    auto p = ConnectionProfile::fromUrl(pg, DbRole::Idempotency, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->displayUrl(), pg);
    // The default port is spelled out, the scheme normalised.
    p = ConnectionProfile::fromUrl(QStringLiteral("mariadb://u@h/db"), DbRole::Ticket, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->displayUrl(), QStringLiteral("mysql://u@h:3306/db"));
    // Percent-encoded parts are decoded: a path with a space, a user name with '@'.
    p = ConnectionProfile::fromUrl(QStringLiteral("sqlite:///tmp/demo%20dir/100%25.db"), DbRole::Ticket, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->database, QStringLiteral("/tmp/demo dir/100%.db"));
    QCOMPARE(p->displayUrl(), QStringLiteral("sqlite:///tmp/demo dir/100%.db"));
    p = ConnectionProfile::fromUrl(QStringLiteral("postgresql://me%40corp@h/db"), DbRole::Ticket, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->user, QStringLiteral("me@corp"));
    QCOMPARE(p->displayUrl(), QStringLiteral("postgresql://me%40corp@h:5432/db"));
    // The display URL parses back to the same profile.
    auto again = ConnectionProfile::fromUrl(
        ConnectionProfile::fromUrl(pg, DbRole::Intent, &error)->displayUrl(), DbRole::Intent, &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(again->statementTimeoutMs, 30000);
    QCOMPARE(again->params.value(QStringLiteral("sslmode")), QStringLiteral("require"));
    QVERIFY(again->sameDatabase(*ConnectionProfile::fromUrl(pg, DbRole::Ticket, &error)));
    QVERIFY(!again->sameDatabase(*ConnectionProfile::fromUrl(QStringLiteral("postgresql://triage@127.0.0.1:55432/other"),
                                                             DbRole::Ticket, &error)));
}

void TstBackendUnit::fromUrl_connectOptions()
{
    QString error;
    auto p = ConnectionProfile::fromUrl(
        QStringLiteral("postgresql://u@h/db?sslmode=verify-full&sslrootcert=/etc/ca.pem&connect_timeout=4"),
        DbRole::Idempotency, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->driverName(), QStringLiteral("QPSQL"));
    QCOMPARE(p->connectOptions(), QStringLiteral("connect_timeout=4;sslmode=verify-full;sslrootcert=/etc/ca.pem"));
    p = ConnectionProfile::fromUrl(QStringLiteral("mysql://u@h/db?ssl_ca=/etc/ca.pem"), DbRole::Idempotency, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->driverName(), QStringLiteral("QMYSQL"));
    QCOMPARE(p->connectOptions(), QStringLiteral("CLIENT_FOUND_ROWS=1;MYSQL_OPT_CONNECT_TIMEOUT=10;SSL_CA=/etc/ca.pem"));
    p = ConnectionProfile::fromUrl(QStringLiteral("sqlite:///tmp/x.db"), DbRole::Idempotency, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->driverName(), QStringLiteral("QSQLITE"));
    QVERIFY(p->connectOptions().contains(QStringLiteral("QSQLITE_BUSY_TIMEOUT=")));
    QVERIFY(p->connectOptions().contains(QStringLiteral("QSQLITE_ENABLE_REGEXP")));
}

void TstBackendUnit::passwords()
{
    EnvGuard g1("TRIAGE_DB_PASSWORD"), g2("TRIAGE_INTENT_DB_PASSWORD"), g3("TRIAGE_TICKET_DB_PASSWORD");
    QCOMPARE(passwordEnvVar(DbRole::Idempotency), QStringLiteral("TRIAGE_IDEMPOTENCY_DB_PASSWORD"));
    QCOMPARE(passwordEnvVar(DbRole::Intent), QStringLiteral("TRIAGE_INTENT_DB_PASSWORD"));
    QCOMPARE(passwordEnvVar(DbRole::Ticket), QStringLiteral("TRIAGE_TICKET_DB_PASSWORD"));
    QCOMPARE(roleTitle(DbRole::Idempotency), QStringLiteral("idempotency database"));
    QCOMPARE(roleTitle(DbRole::Intent), QStringLiteral("intent-log database"));
    QCOMPARE(roleTitle(DbRole::Ticket), QStringLiteral("ticket database"));
    qputenv("TRIAGE_DB_PASSWORD", "common");
    qputenv("TRIAGE_INTENT_DB_PASSWORD", "specific");
    qunsetenv("TRIAGE_TICKET_DB_PASSWORD");
    QString error;
    const auto intent = ConnectionProfile::fromUrl(QStringLiteral("postgresql://u@h/db"), DbRole::Intent, &error);
    const auto ticket = ConnectionProfile::fromUrl(QStringLiteral("postgresql://u@h/db"), DbRole::Ticket, &error);
    QCOMPARE(lookupPassword(*intent), QStringLiteral("specific"));
    QCOMPARE(lookupPassword(*ticket), QStringLiteral("common"));
    QVERIFY(!intent->displayUrl().contains(QStringLiteral("specific")));
}

// ===================================================================== WorkspaceConfig

void TstBackendUnit::ini_example()
{
    const QString path = QStringLiteral(TRIAGE_SOURCE_DIR "/resources/triage.example.ini");
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(c.has_value(), qPrintable(error));
    QVERIFY(error.isEmpty());
    QCOMPARE(c->defaultProcessingTimeoutS, 300);
    QCOMPARE(c->operatorName, QString());
    QCOMPARE(c->readOnly, false);
    QVERIFY(c->hasProfile(DbRole::Idempotency));
    QVERIFY(c->hasProfile(DbRole::Intent));
    QVERIFY(c->hasProfile(DbRole::Ticket));
    QCOMPARE(c->idempotency.dialect, Dialect::PostgreSql);
    QCOMPARE(c->idempotency.host, QStringLiteral("db.example.internal"));
    QCOMPARE(c->idempotency.port, 5432);
    QCOMPARE(c->idempotency.database, QStringLiteral("orders"));
    QCOMPARE(c->idempotency.user, QStringLiteral("triage"));
    QCOMPARE(c->idempotency.statementTimeoutMs, 30000);
    QCOMPARE(c->idempotency.params.value(QStringLiteral("sslmode")), QStringLiteral("verify-full"));
    QCOMPARE(c->idempotency.params.value(QStringLiteral("sslrootcert")), QStringLiteral("/etc/ssl/certs/db-ca.pem"));
    QCOMPARE(c->intent.dialect, Dialect::PostgreSql);
    QCOMPARE(c->intent.database, QStringLiteral("agents"));
    QCOMPARE(c->intent.statementTimeoutMs, 0);
    QCOMPARE(c->ticket.dialect, Dialect::MySql);
    QCOMPARE(c->ticket.host, QStringLiteral("tickets.example.internal"));
    QCOMPARE(c->ticket.user, QStringLiteral("triage_ro"));
    QCOMPARE(c->ticket.database, QStringLiteral("tickets"));
    QCOMPARE(c->ticket.statementTimeoutMs, 30000);
    QCOMPARE(c->bizTypes.keys(), (QStringList{"payment_capture", "ticket_create"}));
    QCOMPARE(c->bizTypes.value("ticket_create").processingTimeoutS, 300);
    QCOMPARE(c->bizTypes.value("ticket_create").tenantPattern, QStringLiteral("ticket:create:{tenant}"));
    QCOMPARE(c->bizTypes.value("payment_capture").processingTimeoutS, 900);
    QCOMPARE(c->bizTypes.value("payment_capture").tenantPattern, QStringLiteral("pay:capture:{tenant}"));
    // An unconfigured biz_type gets the [console] default and the default tenant pattern.
    QCOMPARE(c->bizType("refund_issue").processingTimeoutS, 300);
    QCOMPARE(c->bizType("refund_issue").tenantPattern, QStringLiteral("*:*:{tenant}"));
}

void TstBackendUnit::ini_invalid_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QStringList>("mustContain");
    QTest::newRow("console timeout text") << QByteArray("[console]\nprocessing_timeout=abc\n")
                                          << QStringList{"[console]", "processing_timeout"};
    QTest::newRow("console timeout zero") << QByteArray("[console]\nprocessing_timeout=0\n")
                                          << QStringList{"[console]", "processing_timeout"};
    QTest::newRow("console timeout with unit") << QByteArray("[console]\nprocessing_timeout=5min\n")
                                               << QStringList{"[console]", "processing_timeout"};
    QTest::newRow("read_only not a boolean") << QByteArray("[console]\nread_only=maybe\n")
                                             << QStringList{"[console]", "read_only"};
    QTest::newRow("biz timeout negative") << QByteArray("[biz.ticket_create]\nprocessing_timeout=-1\n")
                                          << QStringList{"[biz.ticket_create]", "processing_timeout"};
    QTest::newRow("biz timeout text") << QByteArray("[biz.refund_issue]\nprocessing_timeout=long\n")
                                      << QStringList{"[biz.refund_issue]", "processing_timeout"};
    QTest::newRow("pattern without tenant") << QByteArray("[biz.ticket_create]\ntenant_pattern=ticket:create\n")
                                            << QStringList{"[biz.ticket_create]", "tenant_pattern"};
    QTest::newRow("pattern with two tenants") << QByteArray("[biz.x]\ntenant_pattern={tenant}:{tenant}\n")
                                              << QStringList{"[biz.x]", "tenant_pattern"};
    QTest::newRow("url with password") << QByteArray("[idempotency]\nurl=postgresql://u:pw@h/db\n")
                                       << QStringList{"[idempotency]", "url", "password"};
    QTest::newRow("url unknown scheme") << QByteArray("[ticket]\nurl=ftp://h/x\n") << QStringList{"[ticket]", "url", "ftp"};
    QTest::newRow("url relative sqlite") << QByteArray("[intent]\nurl=sqlite://rel.db\n")
                                         << QStringList{"[intent]", "url", "absolute path"};
    QTest::newRow("url bad timeout") << QByteArray("[intent]\nurl=\"postgresql://u@h/db?statement_timeout=soon\"\n")
                                     << QStringList{"[intent]", "url", "statement_timeout"};
}

void TstBackendUnit::ini_invalid()
{
    QFETCH(QByteArray, content);
    QFETCH(QStringList, mustContain);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = writeIni(dir, QStringLiteral("bad.ini"), content);
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(!c.has_value(), "an invalid config was accepted");
    QVERIFY2(error.contains(path), qPrintable(error)); // names the file
    for (const QString &s : mustContain)
        QVERIFY2(error.contains(s), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(s, error)));
    QVERIFY2(!error.contains(QStringLiteral(":pw@")), qPrintable(error));

    // A missing file is an error too.
    const auto missing = WorkspaceConfig::fromIniFile(dir.filePath(QStringLiteral("nope.ini")), &error);
    QVERIFY(!missing.has_value());
    QVERIFY2(error.contains(QStringLiteral("no such file")), qPrintable(error));
}

void TstBackendUnit::ini_bizTypeDefaults()
{
    QTemporaryDir dir;
    const QString path = writeIni(dir, QStringLiteral("ok.ini"),
                                  "[console]\nprocessing_timeout=120\nread_only=true\noperator=alice\n"
                                  "[idempotency]\nurl=sqlite:///tmp/a.db\n"
                                  "[biz.notify_send]\ntenant_pattern=\"*:{tenant}\"\n"
                                  "[biz.slow_job]\nprocessing_timeout=3600\n");
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(c.has_value(), qPrintable(error));
    QCOMPARE(c->defaultProcessingTimeoutS, 120);
    QCOMPARE(c->readOnly, true);
    QCOMPARE(c->operatorName, QStringLiteral("alice"));
    QVERIFY(c->hasProfile(DbRole::Idempotency));
    QVERIFY(!c->hasProfile(DbRole::Intent));
    QVERIFY(!c->hasProfile(DbRole::Ticket));
    // A biz section without processing_timeout inherits [console]'s.
    QCOMPARE(c->bizTypes.value("notify_send").processingTimeoutS, 120);
    QCOMPARE(c->bizTypes.value("notify_send").tenantPattern, QStringLiteral("*:{tenant}"));
    QCOMPARE(c->bizTypes.value("slow_job").processingTimeoutS, 3600);
    QCOMPARE(c->bizTypes.value("slow_job").tenantPattern, QStringLiteral("*:*:{tenant}"));
    QCOMPARE(c->bizType("other").processingTimeoutS, 120);

    for (const char *value : {"false", "no", "off", "0", "FALSE"}) {
        const QString p = writeIni(dir, QStringLiteral("ro.ini"), QByteArray("[console]\nread_only=") + value + "\n");
        const auto ro = WorkspaceConfig::fromIniFile(p, &error);
        QVERIFY2(ro.has_value(), qPrintable(error));
        QVERIFY2(!ro->readOnly, value);
    }
    for (const char *value : {"true", "yes", "on", "1", "True"}) {
        const QString p = writeIni(dir, QStringLiteral("ro.ini"), QByteArray("[console]\nread_only=") + value + "\n");
        const auto ro = WorkspaceConfig::fromIniFile(p, &error);
        QVERIFY2(ro.has_value(), qPrintable(error));
        QVERIFY2(ro->readOnly, value);
    }
}

// ===================================================================== JsonText

void TstBackendUnit::json_errorPosition_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("offset");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    // Offsets and columns count QString positions (UTF-16 units: 🚑 counts 2), from 0 and 1.
    const QString illegal = QStringLiteral("{\n  \"name\": \"Störung – 東京 – 🚑\",\n  \"count\": 12,\n  \"ok\": tru\n}");
    QTest::newRow("illegal value: points at the value") << illegal << 56 << 4 << 9;
    QTest::newRow("unterminated string: the end") << QStringLiteral("{\"a\": \"Störung") << 14 << 1 << 15;
    QTest::newRow("truncated array: the end") << QStringLiteral("{\"a\": [1, 2") << 11 << 1 << 12;
    QTest::newRow("missing colon") << QStringLiteral("{\"ö\"\n  1}") << 8 << 2 << 4;
    QTest::newRow("html body") << QStringLiteral("<html><body>502 Bad Gateway</body></html>") << 0 << 1 << 1;
    QTest::newRow("html after spaces") << QStringLiteral("\n\n   <html>") << 5 << 3 << 4;
    QTest::newRow("scalar with trailing comma") << QStringLiteral("42,") << 3 << 1 << 4;
    QTest::newRow("unterminated scalar string") << QStringLiteral("\"東京") << 3 << 1 << 4;
    QTest::newRow("bare word") << QStringLiteral("undefined") << 0 << 1 << 1;
    QTest::newRow("two documents") << QStringLiteral("{}\n{}") << 3 << 2 << 1;
}

void TstBackendUnit::json_errorPosition()
{
    QFETCH(QString, text);
    QFETCH(int, offset);
    QFETCH(int, line);
    QFETCH(int, column);
    const ParsedJson p = parseJsonText(text);
    QVERIFY(!p.ok);
    QVERIFY(!p.isNull);
    QCOMPARE(p.characters, qint64(text.size()));
    QCOMPARE(p.errorOffset, offset);
    QCOMPARE(p.errorLine, line);
    QCOMPARE(p.errorColumn, column);
    QVERIFY2(p.error.endsWith(QStringLiteral(" at line %1, column %2 (offset %3)").arg(line).arg(column).arg(offset)),
             qPrintable(p.error));
    // Cross-check: offset, line and column describe the same position.
    const QString before = text.left(offset);
    QCOMPARE(int(before.count(QLatin1Char('\n'))) + 1, line);
    QCOMPARE(int(before.size() - before.lastIndexOf(QLatin1Char('\n'))), column);
}

namespace {

/// What QJsonDocument writes for `s` as a string value (the reference appendJsonString() follows).
QByteArray qtJsonString(const QString &s)
{
    const QByteArray line = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
    return line.mid(1, line.size() - 2);
}

QByteArray ownJsonString(const QString &s)
{
    QByteArray out = "x"; // appends: what was there stays
    appendJsonString(&out, s);
    return out.mid(1);
}

} // namespace

void TstBackendUnit::json_appendString()
{
    // Every UTF-16 code unit alone (lone surrogates included), and inside plain text.
    for (uint u = 0; u <= 0xffff; ++u) {
        const QString alone{QChar(char16_t(u))};
        const QString inside = QStringLiteral("ab") + alone + QStringLiteral("é€");
        if (ownJsonString(alone) != qtJsonString(alone) || ownJsonString(inside) != qtJsonString(inside))
            QFAIL(qPrintable(QStringLiteral("U+%1: %2 (Qt writes %3)")
                                 .arg(u, 4, 16, QLatin1Char('0'))
                                 .arg(QString::fromUtf8(ownJsonString(inside)), QString::fromUtf8(qtJsonString(inside)))));
    }
    // Exact bytes of the cases the canonical lines rely on.
    QCOMPARE(ownJsonString(QString()), QByteArray(R"("")"));
    QCOMPARE(ownJsonString(QStringLiteral("a\"b\\c\n\t\r\b\f")), QByteArray(R"("a\"b\\c\n\t\r\b\f")"));
    QCOMPARE(ownJsonString(QString(QChar(0)) + QChar(0x1f) + QChar(0x7f)), QByteArray("\"\\u0000\\u001f\x7f\""));
    QCOMPARE(ownJsonString(QString(QChar(0xd83d)) + QChar(0xde00)), QByteArray("\"\xf0\x9f\x98\x80\"")); // a pair: U+1F600
    QCOMPARE(ownJsonString(QString(QChar(0xde00)) + QChar(0xd83d)), QByteArray(R"("\ude00\ud83d")")); // reversed: two lone halves
    QCOMPARE(ownJsonString(QStringLiteral("x") + QChar(0xd83d)), QByteArray(R"("x\ud83d")")); // a high half at the end
    // A shared array is detached, never written through; a long plain text in one piece.
    const QByteArray shared = "x";
    QByteArray copy = shared;
    appendJsonString(&copy, u"ab");
    QCOMPARE(shared, QByteArray("x"));
    QCOMPARE(copy, QByteArray(R"(x"ab")"));
    const QString longText = QString(100000, QLatin1Char('a')) + QStringLiteral("é\\n") + QString(100000, QLatin1Char('b'));
    QCOMPARE(ownJsonString(longText), qtJsonString(longText));
    // Random mixes of every kind of unit, against Qt.
    QRandomGenerator rng(17);
    const char16_t pool[] = {u'a', u'"', u'\\', 0x0, 0x1f, u'\n', 0x7f, 0xe9, 0x20ac, 0xd83d, 0xde00, 0xdbff, 0xdc00, 0xfffe, 0xffff};
    for (int n = 0; n < 20000; ++n) {
        QString s;
        const int length = rng.bounded(12);
        for (int i = 0; i < length; ++i)
            s += QChar(pool[rng.bounded(int(std::size(pool)))]);
        QCOMPARE(ownJsonString(s), qtJsonString(s));
    }
}

void TstBackendUnit::json_valid()
{
    ParsedJson p = parseJsonText(QStringLiteral("{\"a\": [1, 2, {\"b\": \"Störung – 東京 – 🚑\"}]}"));
    QVERIFY2(p.ok, qPrintable(p.error));
    QCOMPARE(p.errorOffset, -1);
    QCOMPARE(p.root.toObject().value("a").toArray().at(2).toObject().value("b").toString(),
             QStringLiteral("Störung – 東京 – 🚑"));
    p = parseJsonText(QStringLiteral("[]"));
    QVERIFY(p.ok);
    QVERIFY(p.root.isArray());
    // Bare scalars are valid JSON documents (RFC 8259).
    p = parseJsonText(QStringLiteral(" 42 "));
    QVERIFY(p.ok);
    QCOMPARE(p.root.toDouble(), 42.0);
    p = parseJsonText(QStringLiteral("\"x\""));
    QVERIFY(p.ok);
    QCOMPARE(p.root.toString(), QStringLiteral("x"));
    p = parseJsonText(QStringLiteral("null"));
    QVERIFY(p.ok);
    QVERIFY(p.root.isNull());
    p = parseJsonText(QStringLiteral("true"));
    QVERIFY(p.ok);
    QCOMPARE(p.root.toBool(), true);
    // Empty and whitespace-only texts are errors, at the start.
    for (const QString &empty : {QString(), QStringLiteral(""), QStringLiteral(" \n\t ")}) {
        p = parseJsonText(empty);
        QVERIFY(!p.ok);
        QVERIFY(!p.isNull);
        QCOMPARE(p.error, QStringLiteral("empty document"));
        QCOMPARE(p.errorOffset, 0);
        QCOMPARE(p.errorLine, 1);
        QCOMPARE(p.errorColumn, 1);
    }
    // SQL NULL is not an empty text.
    p = parseJsonText(std::optional<QString>());
    QVERIFY(!p.ok);
    QVERIFY(p.isNull);
    QCOMPARE(p.error, QStringLiteral("NULL"));
    p = parseJsonText(std::optional<QString>(QStringLiteral("{}")));
    QVERIFY(p.ok);
    QVERIFY(!p.isNull);
    // Several values are not one document, even where wrapping them in [ ] would parse.
    for (const char *bad : {"1, 2", "{} {}", "[1] [2]", "1]", "\"a\"]", "1,"}) {
        p = parseJsonText(QString::fromLatin1(bad));
        QVERIFY2(!p.ok, bad);
    }
}

// ===================================================================== RecordStatus

void TstBackendUnit::recordStatus_data()
{
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("0") << QVariant(0) << "PROCESSING";
    QTest::newRow("1") << QVariant(1) << "SUCCESS";
    QTest::newRow("2") << QVariant(2) << "FAILED";
    QTest::newRow("qulonglong 1 (QPSQL)") << QVariant(qulonglong(1)) << "SUCCESS";
    QTest::newRow("short 2") << QVariant::fromValue(short(2)) << "FAILED";
    QTest::newRow("text 0 (SQLite)") << QVariant(QStringLiteral("0")) << "PROCESSING";
    QTest::newRow("7") << QVariant(7) << "UNKNOWN_CODE_7";
    QTest::newRow("-1") << QVariant(-1) << "UNKNOWN_CODE_-1";
    QTest::newRow("qlonglong -1") << QVariant(qlonglong(-1)) << "UNKNOWN_CODE_-1";
    QTest::newRow("257 is not 1") << QVariant(257) << "UNKNOWN_CODE_257";
    QTest::newRow("2^32+1 is not 1") << QVariant(qlonglong(4294967297LL)) << "UNKNOWN_CODE_4294967297";
    QTest::newRow("1.5 is not 1") << QVariant(1.5) << "UNKNOWN_CODE_1.5";
    QTest::newRow("text 1.5") << QVariant(QStringLiteral("1.5")) << "UNKNOWN_CODE_1.5";
    QTest::newRow("text") << QVariant(QStringLiteral("done")) << "UNKNOWN_CODE_done";
    QTest::newRow("empty text") << QVariant(QStringLiteral("")) << "UNKNOWN_CODE_";
    QTest::newRow("invalid") << QVariant() << "NULL";
    QTest::newRow("typed NULL") << QVariant(QMetaType(QMetaType::Int)) << "NULL";
}

void TstBackendUnit::recordStatus()
{
    QFETCH(QVariant, value);
    QFETCH(QString, expected);
    QCOMPARE(recordStatusText(value), expected);
}

void TstBackendUnit::recordStatusFromText()
{
    QCOMPARE(triage::recordStatusFromText(QStringLiteral("success")), std::optional<int>(1));
    QCOMPARE(triage::recordStatusFromText(QStringLiteral(" Processing ")), std::optional<int>(0));
    QCOMPARE(triage::recordStatusFromText(QStringLiteral("FAILED")), std::optional<int>(2));
    QCOMPARE(triage::recordStatusFromText(QStringLiteral("UNKNOWN_CODE_7")), std::optional<int>());
    QCOMPARE(triage::recordStatusFromText(QStringLiteral("1")), std::optional<int>());
    QCOMPARE(recordStatusName(Success), QStringLiteral("SUCCESS"));
    QCOMPARE(recordStatusName(Processing), QStringLiteral("PROCESSING"));
    QCOMPARE(recordStatusName(Failed), QStringLiteral("FAILED"));
    const StoredRecordStatus known = StoredRecordStatus::fromColumn(QVariant(2));
    QCOMPARE(known.code, std::optional<qint64>(2));
    QCOMPARE(known.text, QStringLiteral("FAILED"));
    QCOMPARE(known.known(), std::optional<RecordStatusCode>(Failed));
    const StoredRecordStatus unknown = StoredRecordStatus::fromColumn(QVariant(7));
    QCOMPARE(unknown.code, std::optional<qint64>(7));
    QCOMPARE(unknown.text, QStringLiteral("UNKNOWN_CODE_7"));
    QCOMPARE(unknown.known(), std::optional<RecordStatusCode>());
    const StoredRecordStatus null = StoredRecordStatus::fromColumn(QVariant());
    QCOMPARE(null.code, std::optional<qint64>());
    QCOMPARE(null.text, QStringLiteral("NULL"));
    QCOMPARE(null.known(), std::optional<RecordStatusCode>());
    QCOMPARE(intentStatuses(), (QStringList{"INTENT", "SUCCEEDED", "FAILED", "UNKNOWN", "RECONCILE_PENDING", "ESCALATED",
                                            "COMPENSATED"}));
}

// ===================================================================== Queue helpers

void TstBackendUnit::tenantFromKey_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("tenant");
    QTest::newRow("default, uuid") << "ticket:create:acme:5f0c" << "*:*:{tenant}" << "acme";
    QTest::newRow("default, exact") << "ticket:create:acme" << "*:*:{tenant}" << "acme";
    QTest::newRow("default, too short") << "ticket:create" << "*:*:{tenant}" << "";
    QTest::newRow("task style key") << "task_123_step_4_create_order" << "*:*:{tenant}" << "";
    QTest::newRow("literal prefix") << "ticket:create:zürich:1" << "ticket:create:{tenant}" << "zürich";
    QTest::newRow("literal prefix mismatch") << "pay:capture:acme:1" << "ticket:create:{tenant}" << "";
    QTest::newRow("metacharacters") << "ticket:create:a_b%c:1" << "ticket:create:{tenant}" << "a_b%c";
    QTest::newRow("tenant first") << "acme:job:1" << "{tenant}:job" << "acme";
    QTest::newRow("literal tail") << "job:acme:run:1" << "job:{tenant}:run" << "acme";
    QTest::newRow("literal tail mismatch") << "job:acme:walk:1" << "job:{tenant}:run" << "";
}

void TstBackendUnit::tenantFromKey()
{
    QFETCH(QString, key);
    QFETCH(QString, pattern);
    QFETCH(QString, tenant);
    QCOMPARE(triage::tenantFromKey(key, pattern), tenant);
}

void TstBackendUnit::likeLiteral()
{
    QCOMPARE(SqlDialect::likeLiteral(QStringLiteral("a_b%c!d")), QStringLiteral("a!_b!%c!!d"));
    QCOMPARE(SqlDialect::likeLiteral(QStringLiteral("zürich")), QStringLiteral("zürich"));
    QCOMPARE(SqlDialect::likeEscapeClause(), QStringLiteral(" ESCAPE '!'"));
}

void TstBackendUnit::queueNames()
{
    for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded, QueueKind::Escalated}) {
        QCOMPARE(queueFromName(queueName(k)), std::optional<QueueKind>(k));
        QCOMPARE(queueFromName(queueName(k).toUpper()), std::optional<QueueKind>(k));
    }
    QCOMPARE(queueFromName(QStringLiteral("in-flight")), std::optional<QueueKind>(QueueKind::InFlight));
    QCOMPARE(queueFromName(QStringLiteral("succeeded")), std::optional<QueueKind>(QueueKind::Succeeded));
    QCOMPARE(queueFromName(QStringLiteral("stale")), std::optional<QueueKind>());
    QVERIFY(queueUsesIntents(QueueKind::Unknown, {}));
    QVERIFY(queueUsesIntents(QueueKind::Escalated, {}));
    QVERIFY(!queueUsesIntents(QueueKind::InFlight, {}));
    QueueFilter biz;
    biz.bizType = QStringLiteral("ticket_create");
    QVERIFY(!queueUsesIntents(QueueKind::Unknown, biz)); // intent rows have no biz_type
    QVERIFY(!queueUsesRecords(QueueKind::Escalated));
}

namespace {
QueueRow row(QueueSource s, qint64 id, const QString &time)
{
    QueueRow r;
    r.source = s;
    r.id = id;
    r.idemKey = QStringLiteral("k%1").arg(id);
    r.updatedAt = time;
    r.cursorTime = time;
    return r;
}
} // namespace

void TstBackendUnit::mergeQueuePages_interleaves()
{
    const auto R = QueueSource::Record, I = QueueSource::Intent;
    const QString t1 = "2026-01-01T00:00:01.000000Z", t2 = "2026-01-01T00:00:02.000000Z", t3 = "2026-01-01T00:00:03.000000Z";
    QueueRequest req;
    // Records [t1 #1, t3 #2] (complete), intents [t1 #5, t2 #6] (complete), limit 3.
    QueuePage p = mergeQueuePages(req, {}, {row(R, 1, t1), row(R, 2, t3)}, true, {row(I, 5, t1), row(I, 6, t2)}, true, 3);
    QCOMPARE(p.rows.size(), 3);
    QCOMPARE(p.rows[0].id, 1); // records first on equal times
    QCOMPARE(p.rows[1].id, 5);
    QCOMPARE(p.rows[2].id, 6);
    // The record source continues after the queue position (intent #6 at t2), not after its
    // own last row #1: no record at t2 or earlier can come any more.
    QVERIFY(p.next.record.started);
    QCOMPARE(p.next.record.time, t2);
    QCOMPARE(p.next.record.id, std::numeric_limits<qint64>::max());
    QVERIFY(!p.next.record.exhausted); // #2 not consumed yet
    QVERIFY(p.next.intent.started);
    QCOMPARE(p.next.intent.id, 6);
    QVERIFY(p.next.intent.exhausted);
    QVERIFY(!p.atEnd);
    // The next page continues from the cursor: only record #2 remains.
    p = mergeQueuePages(req, p.next, {row(R, 2, t3)}, true, {}, true, 3);
    QCOMPARE(p.rows.size(), 1);
    QCOMPARE(p.rows[0].id, 2);
    QVERIFY(p.atEnd);
    // After a record at t, every intent at t is still to come (records first on ties).
    p = mergeQueuePages(req, {}, {row(R, 1, t1), row(R, 2, t2)}, true, {row(I, 5, t2)}, false, 2);
    QCOMPARE(p.rows.size(), 2);
    QCOMPARE(p.rows[1].id, 2);
    QVERIFY(p.next.intent.started);
    QCOMPARE(p.next.intent.time, t2);
    QCOMPARE(p.next.intent.id, std::numeric_limits<qint64>::min() + 1);
    // A full partial page (not complete) is never exhausted, even when consumed.
    p = mergeQueuePages(req, {}, {row(R, 1, t1), row(R, 2, t2)}, false, {}, true, 2);
    QCOMPARE(p.rows.size(), 2);
    QVERIFY(!p.next.record.exhausted);
    QVERIFY(!p.atEnd);
}

void TstBackendUnit::mergeQueuePages_newestFirst()
{
    const auto R = QueueSource::Record, I = QueueSource::Intent;
    const QString t1 = "2026-01-01T00:00:01.000000Z", t2 = "2026-01-01T00:00:02.000000Z", t3 = "2026-01-01T00:00:03.000000Z";
    QueueRequest req;
    req.newestFirst = true;
    const QueuePage p = mergeQueuePages(req, {}, {row(R, 2, t3), row(R, 1, t1)}, true, {row(I, 6, t3), row(I, 5, t2)}, true, 10);
    QCOMPARE(p.rows.size(), 4);
    QCOMPARE(p.rows[0].id, 2);
    QCOMPARE(p.rows[1].id, 6);
    QCOMPARE(p.rows[2].id, 5);
    QCOMPARE(p.rows[3].id, 1);
    QVERIFY(p.atEnd);
    // Newest first, the bounds flip: after an intent at t nothing of the records at t is
    // left (id bound below every id); after a record at t all intents at t are (above).
    QueuePage q = mergeQueuePages(req, {}, {row(R, 2, t3)}, false, {row(I, 6, t3), row(I, 5, t2)}, false, 2);
    QCOMPARE(q.rows.size(), 2);
    QCOMPARE(q.rows[1].id, 6);
    QCOMPARE(q.next.record.time, t3);
    QCOMPARE(q.next.record.id, std::numeric_limits<qint64>::min() + 1);
    q = mergeQueuePages(req, {}, {row(R, 2, t3)}, false, {row(I, 6, t3)}, false, 1);
    QCOMPARE(q.rows.size(), 1);
    QCOMPARE(q.rows[0].id, 2);
    QCOMPARE(q.next.intent.time, t3);
    QCOMPARE(q.next.intent.id, std::numeric_limits<qint64>::max());
}

void TstBackendUnit::mergeQueuePages_crossingInstant()
{
    // A position taken from the other source's row carries its instant (for a table that
    // keeps time otherwise); a source's own last row does not.
    const auto R = QueueSource::Record, I = QueueSource::Intent;
    const QString t1 = "2026-01-01T00:00:01.000000Z", t2 = "2026-01-01T00:00:02.000500Z";
    QueueRow r = row(R, 1, t1);
    r.cursorTime = QStringLiteral("1767225601000"); // epoch milliseconds
    const QueuePage p = mergeQueuePages(QueueRequest{}, {}, {r}, false, {row(I, 5, t2)}, false, 2);
    QCOMPARE(p.rows.size(), 2);
    QCOMPARE(p.next.intent.time, t2);
    QVERIFY(p.next.intent.instant.isEmpty());
    QCOMPARE(p.next.record.time, t2);
    QCOMPARE(p.next.record.instant, t2);
    const QueuePage q = mergeQueuePages(QueueRequest{}, {}, {r}, false, {row(I, 5, t2)}, true, 1);
    QCOMPARE(q.next.record.time, QStringLiteral("1767225601000"));
    QVERIFY(q.next.record.instant.isEmpty());
    QCOMPARE(q.next.intent.time, QStringLiteral("1767225601000")); // the record's own form …
    QCOMPARE(q.next.intent.instant, t1);                          // … and the instant
}

void TstBackendUnit::timeSqlCursorAt()
{
    // DESIGN.md §10: an instant in another table's cursor form; epoch units rounded down, or
    // up where the id bound keeps the rows at the instant.
    const UtcMicros t = *parseUtcMicros(QStringLiteral("2020-01-01T00:00:01.000500Z"));
    const TimeSql ms(Dialect::PostgreSql, TimeMapping{TimeEncoding::EpochMillis, {}});
    QCOMPARE(ms.cursorAt(t, false), QStringLiteral("1577836801000"));
    QCOMPARE(ms.cursorAt(t, true), QStringLiteral("1577836801001"));
    QCOMPARE(ms.cursorAt(t - 500, true), QStringLiteral("1577836801000")); // a whole millisecond stays
    QCOMPARE(ms.cursorAt(-500, false), QStringLiteral("-1"));                // before 1970: floor
    QCOMPARE(ms.cursorAt(-500, true), QStringLiteral("0"));
    const TimeSql s(Dialect::MySql, TimeMapping{TimeEncoding::EpochSeconds, {}});
    QCOMPARE(s.cursorAt(t, false), QStringLiteral("1577836801"));
    QCOMPARE(s.cursorAt(t, true), QStringLiteral("1577836802"));
    QCOMPARE(TimeSql(Dialect::PostgreSql, {}).cursorAt(t, true), QStringLiteral("2020-01-01T00:00:01.000500Z"));
    QCOMPARE(TimeSql(Dialect::Sqlite, {}).cursorAt(t, false), QStringLiteral("2020-01-01T00:00:01.000500Z"));
    QCOMPARE(TimeSql(Dialect::Sqlite, TimeMapping{TimeEncoding::Local, QStringLiteral("+08:00")}).cursorAt(t, false),
             QStringLiteral("2020-01-01T08:00:01.000500"));
    // The cursor value bound for an epoch cursor is the number.
    QCOMPARE(ms.cursorValue(ms.cursorAt(t, true)), QVariant(qint64(1577836801001)));
}

// ===================================================================== Schema files

void TstBackendUnit::schemaStatements_data()
{
    QTest::addColumn<int>("dialect");
    QTest::newRow("postgresql") << int(Dialect::PostgreSql);
    QTest::newRow("mysql") << int(Dialect::MySql);
    QTest::newRow("sqlite") << int(Dialect::Sqlite);
}

void TstBackendUnit::schemaStatements()
{
    QFETCH(int, dialect);
    const Dialect d = Dialect(dialect);
    SchemaOptions with, without;
    without.ticketBackstop = false;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        const QStringList a = triage::schemaStatements(d, role, with);
        const QStringList b = triage::schemaStatements(d, role, without);
        QVERIFY2(!a.isEmpty(), qPrintable(roleName(role)));
        QCOMPARE(a.size(), b.size());
        for (const QString &s : a) {
            QVERIFY2(!s.endsWith(QLatin1Char(';')), qPrintable(s));
            QVERIFY2(s.startsWith(QLatin1String("CREATE ")), qPrintable(s));
            QVERIFY2(s.contains(QLatin1String("IF NOT EXISTS")), qPrintable(s)); // idempotent
        }
        const auto has = [](const QStringList &l, const char *needle) {
            return std::any_of(l.begin(), l.end(), [&](const QString &s) { return s.contains(QLatin1String(needle)); });
        };
        if (role == DbRole::Ticket) {
            QVERIFY(has(a, "UNIQUE INDEX IF NOT EXISTS uq_ticket_idem_key"));
            QVERIFY(!has(b, "uq_ticket_idem_key"));
            QVERIFY(has(b, "INDEX IF NOT EXISTS idx_ticket_idem_key"));
            QVERIFY(!has(a, "idx_ticket_idem_key"));
        } else {
            QCOMPARE(a, b);
        }
        const char *table = role == DbRole::Idempotency ? "TABLE IF NOT EXISTS idempotency_record"
            : role == DbRole::Intent                    ? "TABLE IF NOT EXISTS intent_log"
                                                        : "TABLE IF NOT EXISTS ticket";
        QVERIFY(has(a, table));
    }
}

QTEST_GUILESS_MAIN(TstBackendUnit)
#include "tst_backend_unit.moc"
