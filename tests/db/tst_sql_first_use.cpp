// A process whose first database connections are added on several threads at once exits
// (SqlDriverRegistry.h, docs/QT-PITFALLS.md "Qt SQL"). Qt 6.4.2 registers Qt SQL's clean-up
// routine behind an unsynchronised flag: two threads adding the process's first connections
// could both register it, and ~QCoreApplication then ran it for ever (triagectl hung after
// printing its result, about once in 600 runs; CI failed on it twice).
//
// Each check runs this executable again as a child (TRIAGE_SQL_FIRST_USE_CHILD set): the
// child releases 8 threads at once from a latch; each adds its first connection, and the
// child returns from main(), destroying its QCoreApplication.
//   sessions  each thread constructs a DbSession (the product's only way to add one);
//   raw       each thread calls QSqlDatabase::addDatabase() directly, unguarded: Qt's own
//             behaviour, for measuring (not run by the test). On a 2-core Debian 12
//             machine, 2 of 2,000 raw children registered the routine twice and hung
//             (`TRIAGE_SQL_FIRST_USE_CHILD=raw timeout 5 ./tst_sql_first_use` in a loop);
//             0 of 2,000 sessions children did. The check below is a regression guard,
//             not a proof: at that rate its 300 children catch a regression about one
//             run in four.
#include "ConnectionProfile.h"
#include "DbSession.h"

#include <QCoreApplication>
#include <QProcess>
#include <QSqlDatabase>
#include <QTest>

#include <latch>
#include <memory>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 8;
constexpr char kChildVariable[] = "TRIAGE_SQL_FIRST_USE_CHILD";

int childMain(int argc, char **argv, const QByteArray &mode)
{
    QCoreApplication app(argc, argv);
    QString error;
    const auto profile = triage::ConnectionProfile::fromUrl(QStringLiteral("sqlite:///tmp/triage-first-use-never-opened.db"),
                                                            triage::DbRole::Idempotency, &error);
    if (!profile)
        return 3;
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&, i] {
            const QString name = QStringLiteral("first-use-%1").arg(i);
            start.arrive_and_wait();
            if (mode == "raw") {
                { QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name); }
                QSqlDatabase::removeDatabase(name);
            } else {
                triage::DbSession session(*profile, name); // never opened: adding is the race
            }
        });
    }
    for (auto &t : threads)
        t.join();
    return 0; // ~QCoreApplication runs Qt SQL's clean-up routine
}

} // namespace

class TstSqlFirstUse : public QObject {
    Q_OBJECT
private slots:
    /// 300 children whose 8 threads construct their first DbSession at once: every one exits
    /// with code 0 (a child still running after 30 s has hung at exit and is counted, then
    /// killed; a healthy child takes about 15 ms).
    void firstSessionsOnManyThreadsExit()
    {
        constexpr int kChildren = 300;
        int exited = 0;
        int hung = 0;
        QStringList failures;
        for (int i = 0; i < kChildren; ++i) {
            QProcess child;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QString::fromLatin1(kChildVariable), QStringLiteral("sessions"));
            child.setProcessEnvironment(env);
            child.start(QCoreApplication::applicationFilePath(), {});
            QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));
            if (!child.waitForFinished(30000)) {
                ++hung;
                child.kill();
                child.waitForFinished(10000);
                continue;
            }
            if (child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0)
                ++exited;
            else
                failures << QStringLiteral("child %1: status %2, code %3, stderr %4")
                                .arg(i)
                                .arg(int(child.exitStatus()))
                                .arg(child.exitCode())
                                .arg(QString::fromLocal8Bit(child.readAllStandardError()));
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
        QCOMPARE(hung, 0);
        QCOMPARE(exited, kChildren);
    }
};

int main(int argc, char **argv)
{
    const QByteArray mode = qgetenv(kChildVariable);
    if (!mode.isEmpty())
        return childMain(argc, argv, mode);
    QCoreApplication app(argc, argv);
    TstSqlFirstUse test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_sql_first_use.moc"
