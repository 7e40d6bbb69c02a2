// One login attempt per credential (DbSession::ensureOpen()): a wrong password costs
// exactly one failed login on the server for a console start (Workspace open, every
// queue's first page and count, a key's detail, and a retry of all of it) and for a
// triagectl command, although the three stores (and their workers, the merge pool, a
// cancel connection) share one user. Counted on the server, for a role / user created for
// this test alone, so parallel tests cannot disturb the count:
// - PostgreSQL logs every refused password as `FATAL: password authentication failed for
//   user "<name>"` (at any log level: FATAL is always logged) before it answers the client;
//   a superuser reads the server's log through SQL (pg_read_file() of pg_current_logfile(),
//   or of the server's stderr, /proc/self/fd/2, when the server logs to a plain file), from
//   the size it had before the test.
// - MariaDB logs `Access denied for user '<name>'@'<host>'` to its error log (@@log_error)
//   with log_warnings >= 2 (the default), also before it answers; the test reads that file
//   (servers run on this machine, loopback only). The global status counter
//   Access_denied_errors would count other tests' failures too.

#include "Queue.h"
#include "CtlRun.h"
#include "QueryCancel.h"
#include "TestDatabases.h"
#include "Workspace.h"
#include "KeyDetail.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <QUrl>

using namespace triage;
using namespace triage::test;

namespace {

const QueueKind kKinds[] = {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded,
                            QueueKind::Escalated};

/// Sets an environment variable for the scope, restoring the previous value.
class EnvScope {
public:
    EnvScope(const char *name, const QByteArray &value) : m_name(name), m_had(qEnvironmentVariableIsSet(name)), m_old(qgetenv(name))
    {
        qputenv(name, value);
    }
    ~EnvScope()
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

} // namespace

class TestLoginOnce : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<TestDatabase> m_db;
    QString m_user;
    qint64 m_logStart = 0;
    QString m_logPath; ///< PostgreSQL: the path pg_read_file() takes; MariaDB: the file

    /// The database URL with `user` instead of the admin.
    QString urlFor(const QString &user) const
    {
        QUrl u(m_db->url());
        u.setUserName(user);
        return u.toString();
    }

    WorkspaceConfig configFor(const QString &user) const
    {
        WorkspaceConfig c = m_db->config();
        QString error;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
            auto p = ConnectionProfile::fromUrl(urlFor(user), role, &error);
            Q_ASSERT(p);
            (role == DbRole::Idempotency ? c.idempotency : role == DbRole::Intent ? c.intent : c.ticket) = *p;
        }
        return c;
    }

    /// Prepares counting: remembers where the server's log ends now. Empty or an error.
    QString startCounting()
    {
        QString error;
        if (m_db->backend() == QLatin1String("postgresql")) {
            const QString current = m_db->adminQueryColumn(QStringLiteral("SELECT COALESCE(pg_current_logfile(), '')"), &error).value(0);
            if (!error.isEmpty())
                return error;
            m_logPath = current.isEmpty() ? QStringLiteral("/proc/self/fd/2") : current;
            const QString size = m_db->adminQueryColumn(QStringLiteral("SELECT size FROM pg_stat_file('%1')").arg(m_logPath), &error).value(0);
            if (!error.isEmpty())
                return QStringLiteral("the server's log is not readable through pg_stat_file(): %1").arg(error);
            m_logStart = size.toLongLong();
        } else {
            const QStringList v = m_db->adminQueryColumn(
                QStringLiteral("SELECT CONCAT(@@log_error, '\\t', @@datadir, '\\t', @@log_warnings)"), &error);
            if (!error.isEmpty())
                return error;
            const QStringList parts = v.value(0).split(QLatin1Char('\t'));
            if (parts.size() != 3 || parts[0].isEmpty())
                return QStringLiteral("MariaDB logs to no file (@@log_error is empty)");
            if (parts[2].toInt() < 2)
                return QStringLiteral("MariaDB's log_warnings is %1: refused logins are logged from 2 on").arg(parts[2]);
            m_logPath = QDir::isAbsolutePath(parts[0]) ? parts[0] : QDir(parts[1]).filePath(parts[0]);
            QFile f(m_logPath);
            if (!f.open(QIODevice::ReadOnly))
                return QStringLiteral("cannot read MariaDB's error log %1: %2").arg(m_logPath, f.errorString());
            m_logStart = f.size();
        }
        return {};
    }

    /// Failed logins of `m_user` the server logged since startCounting(); -1 on error.
    int failedLogins()
    {
        QString text;
        if (m_db->backend() == QLatin1String("postgresql")) {
            QString error;
            text = m_db->adminQueryColumn(QStringLiteral("SELECT pg_read_file('%1', %2, (SELECT size FROM pg_stat_file('%1')) - %2)")
                                              .arg(m_logPath)
                                              .arg(m_logStart),
                                          &error)
                       .value(0);
            if (!error.isEmpty()) {
                qWarning("%s", qPrintable(error));
                return -1;
            }
            return int(text.count(QStringLiteral("password authentication failed for user \"%1\"").arg(m_user)));
        }
        QFile f(m_logPath);
        if (!f.open(QIODevice::ReadOnly) || !f.seek(m_logStart))
            return -1;
        text = QString::fromUtf8(f.readAll());
        return int(text.count(QStringLiteral("Access denied for user '%1'@").arg(m_user)));
    }

private slots:
    void init()
    {
        const QString backend = QString::fromLatin1(QTest::currentDataTag());
        m_db = std::make_unique<TestDatabase>(backend);
        // A user of this test alone, with a password the console will not be given.
        m_user = QStringLiteral("c11_%1_%2").arg(QCoreApplication::applicationPid()).arg(backend.left(2));
        if (!m_db->available())
            return;
        const QString e = backend == QLatin1String("postgresql")
            ? m_db->adminExec(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD 'Right-Secret-1'").arg(m_user))
            : m_db->adminExec(QStringLiteral("CREATE USER '%1'@'%' IDENTIFIED BY 'Right-Secret-1'").arg(m_user));
        QVERIFY2(e.isEmpty(), qPrintable(e));
    }
    void cleanup()
    {
        if (m_db && m_db->available()) {
            if (m_db->backend() == QLatin1String("postgresql"))
                m_db->adminExec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(m_user));
            else
                m_db->adminExec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(m_user));
        }
        m_db.reset();
        forgetRefusedLogins();
    }

    void consoleStart_data()
    {
        QTest::addColumn<int>("unused");
        QTest::newRow("postgresql") << 0;
        QTest::newRow("mysql") << 0;
    }
    /// Workspace open + every queue's first page and count + a key's detail, twice (the
    /// second round is what Retry / Load again does): one failed login in all.
    void consoleStart()
    {
        TRIAGE_REQUIRE_BACKEND(*m_db);
        const QString counting = startCounting();
        QVERIFY2(counting.isEmpty(), qPrintable(counting));
        const EnvScope password("TRIAGE_DB_PASSWORD", "Wr0ng-Secret-4711");
        Workspace ws(configFor(m_user));
        for (int round = 1; round <= 2; ++round) {
            QList<QFuture<Outcome<QueuePage>>> pages;
            QList<QFuture<Outcome<qint64>>> counts;
            for (QueueKind k : kKinds) {
                QueueRequest r;
                r.kind = k;
                pages << fetchQueuePage(ws, r, {}, 100);
                counts << countQueue(ws, r);
            }
            const KeyDetail detail = loadKeyDetail(ws, QStringLiteral("ticket:create:acme:1")).result();
            for (auto &f : pages) {
                const auto o = f.result();
                QVERIFY(!o.ok());
                QCOMPARE(o.error->kind, DbError::Kind::Connection);
                // Which store and which user failed, and that it is not retried.
                QVERIFY2(o.error->message.startsWith(QStringLiteral("cannot connect to the %1 (").arg(roleTitle(o.error->role))),
                         qPrintable(o.error->message));
                QVERIFY2(o.error->message.contains(QStringLiteral("the login as user \"%1\" on ").arg(m_user)), qPrintable(o.error->message));
                QVERIFY2(o.error->message.contains(QStringLiteral("with the password from $TRIAGE_DB_PASSWORD")), qPrintable(o.error->message));
                QVERIFY2(o.error->message.contains(QStringLiteral("this process does not try this credential again")),
                         qPrintable(o.error->message));
                QVERIFY(!o.error->message.contains(QStringLiteral("Wr0ng-Secret-4711")));
            }
            for (auto &f : counts)
                QVERIFY(!f.result().ok());
            QCOMPARE(detail.errors.size(), 3); // every store named
            QCOMPARE(failedLogins(), 1);
        }
        // The cancel connection (a second connection with the same profile) does not try either.
        const auto cancel = cancelRunningStatement(ws.worker(DbRole::Idempotency)).result();
        QVERIFY(cancel.ok() || cancel.error->kind == DbError::Kind::Connection);
        QCOMPARE(failedLogins(), 1);
        // The rule remembers the credential, not the store: another password is tried, once.
        const EnvScope other("TRIAGE_INTENT_DB_PASSWORD", "Another-Wr0ng-1");
        for (int attempt = 1; attempt <= 2; ++attempt) {
            const auto o = ws.worker(DbRole::Intent).run<Done>([](DbSession &) { return Done{}; }).result();
            QVERIFY(!o.ok());
            QVERIFY2(o.error->message.contains(QStringLiteral("with the password from $TRIAGE_INTENT_DB_PASSWORD")),
                     qPrintable(o.error->message));
        }
        QCOMPARE(failedLogins(), 2);
    }

    void triagectlCommand_data()
    {
        QTest::addColumn<QString>("command");
        for (const char *backend : {"postgresql", "mysql"}) {
            QTest::newRow(backend) << QStringLiteral("list");
        }
    }
    /// `triagectl list unknown` and `triagectl show KEY`: one failed login each.
    void triagectlCommand()
    {
        TRIAGE_REQUIRE_BACKEND(*m_db);
        const QString counting = startCounting();
        QVERIFY2(counting.isEmpty(), qPrintable(counting));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRIAGE_DB_PASSWORD"), QStringLiteral("Wr0ng-Secret-4711"));
        const QString url = urlFor(m_user);
        const QStringList stores = {QStringLiteral("--idempotency-db"), url, QStringLiteral("--intent-db"), url,
                                    QStringLiteral("--ticket-db"), url};
        int expected = 0;
        for (const QStringList &command : {QStringList{QStringLiteral("list"), QStringLiteral("unknown")},
                                           QStringList{QStringLiteral("show"), QStringLiteral("ticket:create:acme:1")}}) {
            const CtlRun r = runCtl(stores + command, env, {}, 60000);
            QVERIFY2(r.finished, r.describe().constData());
            const QByteArray err = r.err;
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(err.contains(QStringLiteral("the login as user \"%1\" on ").arg(m_user).toUtf8()), err.constData());
            QVERIFY2(err.contains("cannot connect to the "), err.constData());
            QVERIFY(!err.contains("Wr0ng-Secret-4711"));
            QCOMPARE(failedLogins(), ++expected);
        }
    }
};

QTEST_GUILESS_MAIN(TestLoginOnce)
#include "tst_login_once.moc"
