// The start path under CPU load, many times in a row: no page, count or detail may be lost.
//
// `triage-console --screenshot` used to hang in about 1 run of 6-17 on a busy machine:
// Qt 6.4's `future.then(context, fn)` runs `fn` synchronously inside then() when the
// future has already finished, so a worker that beat the GUI thread delivered the Unknown
// queue's first page inside MainWindow's constructor, before the ScreenshotRunner had
// connected to the model (WhenReady.h has the rule that replaced it). This test runs the
// real start path — a fresh Workspace (new worker threads and connections), MainWindow and
// the ScreenshotRunner, as main.cpp does — 200 times in process, then `triagectl show` and
// `triagectl list` 200 times in process (Triagectl::run, as triagectl's main() does) and a
// bounded number of times as processes (12 each: a triagectl process costs about half a
// second on this 2-core machine, so 200 would take minutes), all with two CPU-burning
// threads running. Every run must deliver everything: the runner's exit code 0 with the
// Unknown queue's first page and the first row's detail, and every queue's exact count.
// No run is timed: the runner's own 60 s limit only turns a hang into a failure.

#include "MainWindow.h"
#include "DuplicatesPane.h"
#include "ProposalsPane.h"
#include "DuplicateGroupsModel.h"
#include "ModelTestUtil.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "ScreenshotRunner.h"
#include "Triagectl.h"
#include "Queue.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

using namespace triage;
using namespace triage::test;

namespace {

const QueueKind kKinds[] = {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded,
                            QueueKind::Escalated};

/// Two threads that keep both cores busy while alive (the machine of the bug report was
/// busy with other work).
class CpuLoad {
public:
    CpuLoad()
    {
        for (int i = 0; i < 2; ++i)
            m_threads.emplace_back([this] {
                volatile quint64 x = 0;
                while (!m_stop.load(std::memory_order_relaxed))
                    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            });
    }
    ~CpuLoad()
    {
        m_stop.store(true);
        for (auto &t : m_threads)
            t.join();
    }

private:
    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads;
};

/// The demo's configuration with processing timeouts of ten years: no record crosses the
/// staleness boundary while the test runs, so every queue's count stays exactly the same.
WorkspaceConfig steadyConfig(const TestDatabase &db)
{
    WorkspaceConfig c = demoConfig(db);
    const int tenYears = 10 * 365 * 86400;
    c.defaultProcessingTimeoutS = tenYears;
    for (auto it = c.bizTypes.begin(); it != c.bizTypes.end(); ++it)
        it->processingTimeoutS = tenYears;
    return c;
}

/// Starts `runner` after the window's constructor and shows `window`, exactly as main.cpp
/// does, and spins until the runner finishes: its exit code and message.
std::pair<int, QString> shoot(ScreenshotRunner &runner, MainWindow &window)
{
    std::pair<int, QString> result{-1, QString()};
    QEventLoop loop;
    QObject::connect(&runner, &ScreenshotRunner::finished, &loop, [&](int code, const QString &m) {
        result = {code, m};
        loop.quit();
    });
    runner.start();
    window.show();
    loop.exec();
    return result;
}

} // namespace

class TestStartRace : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<TestDatabase> m_db;
    QTemporaryDir m_dir;
    qint64 m_expected[5] = {};
    QString m_firstKey;
    QStringList m_urls; ///< --idempotency-db URL --intent-db URL --ticket-db URL

    /// A `--screenshot-tab` shot as main.cpp takes it, `runs` times under CPU load: the tab
    /// `paneOf(window)` made current, `wantTab` set on the runner; every run exits 0 with a
    /// non-empty file, then `check` looks at the window.
    void shootTab(const QString &file, int runs, const std::function<QWidget *(MainWindow &)> &paneOf,
                  void (ScreenshotRunner::*wantTab)(bool), const std::function<void(MainWindow &)> &check)
    {
        const WorkspaceConfig config = steadyConfig(*m_db);
        const QString shot = m_dir.filePath(file);
        CpuLoad load;
        for (int run = 1; run <= runs; ++run) {
            Workspace workspace(config);
            MainWindow window(&workspace);
            window.resize(1400, 900);
            window.showTab(paneOf(window));
            ScreenshotRunner runner(&window, shot, QString());
            runner.setSettleDelay(0);
            (runner.*wantTab)(true);
            const auto [exitCode, message] = shoot(runner, window);
            QVERIFY2(exitCode == 0, qPrintable(QStringLiteral("run %1: exit %2: %3").arg(run).arg(exitCode).arg(message)));
            check(window);
            if (QTest::currentTestFailed())
                return;
            QVERIFY(QFileInfo(shot).size() > 0);
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
        QVERIFY(m_db->available());
        {
            Workspace seeding(demoConfig(*m_db));
            const QString e = seedDemo(seeding);
            QVERIFY2(e.isEmpty(), qPrintable(e));
        }
        Workspace ws(steadyConfig(*m_db));
        // The exact counts and the Unknown queue's first key, read once without the window.
        for (int i = 0; i < 5; ++i) {
            QueueRequest r;
            r.kind = kKinds[i];
            const auto c = countQueue(ws, r).result();
            QVERIFY2(c.ok(), c.ok() ? "" : qPrintable(c.error->message));
            m_expected[i] = *c;
        }
        QVERIFY(m_expected[0] > 0 && m_expected[1] > 0 && m_expected[2] > 0 && m_expected[3] > 0 && m_expected[4] > 0);
        QueueRequest unknown;
        const auto page = fetchQueuePage(ws, unknown, {}, 1).result();
        QVERIFY(page.ok() && page->rows.size() == 1);
        m_firstKey = page->rows.first().idemKey;
        for (const char *role : {"idempotency", "intent", "ticket"})
            m_urls << QStringLiteral("--%1-db").arg(QLatin1String(role)) << m_db->url();
    }
    void cleanupTestCase() { m_db.reset(); }

    /// 200 starts of Workspace + MainWindow + ScreenshotRunner under CPU load.
    void consoleStarts()
    {
        const WorkspaceConfig config = steadyConfig(*m_db);
        // BMP: the same grab and write as the PNG of main.cpp, without 200 PNG encodings.
        const QString shot = m_dir.filePath(QStringLiteral("start.bmp"));
        CpuLoad load;
        QElapsedTimer took;
        took.start();
        for (int run = 1; run <= 200; ++run) {
            Workspace workspace(config);
            MainWindow window(&workspace);
            window.resize(1400, 900);
            ScreenshotRunner runner(&window, shot, QString());
            runner.setSettleDelay(0);
            const auto [exitCode, message] = shoot(runner, window);
            QVERIFY2(exitCode == 0, qPrintable(QStringLiteral("run %1: exit %2: %3").arg(run).arg(exitCode).arg(message)));
            // Every pane's count arrives too (the runner waits for the Unknown one only).
            QVERIFY2(QTest::qWaitFor(
                         [&] {
                             for (QueueKind k : kKinds)
                                 if (window.queuePane(k)->model()->isCounting() || window.queuePane(k)->model()->isLoading())
                                     return false;
                             return true;
                         },
                         60000),
                     qPrintable(QStringLiteral("run %1: a page or count never arrived").arg(run)));
            for (int i = 0; i < 5; ++i) {
                const QueueModel *m = window.queuePane(kKinds[i])->model();
                QVERIFY2(m->count() == m_expected[i],
                         qPrintable(QStringLiteral("run %1, %2 queue: count %3, expected %4 (%5)")
                                        .arg(run)
                                        .arg(queueName(kKinds[i]))
                                        .arg(m->count())
                                        .arg(m_expected[i])
                                        .arg(m->countError())));
                QVERIFY2(m->lastError().isEmpty(), qPrintable(m->lastError()));
                QCOMPARE(m->rowCount(), int(qMin<qint64>(100, m_expected[i])));
            }
            QCOMPARE(window.queuePane(QueueKind::Unknown)->model()->queueRow(0).idemKey, m_firstKey);
        }
        qInfo("200 console starts under CPU load in %lld ms", took.elapsed());
    }

    /// `--screenshot-tab duplicates`, 10 times under CPU load: the shot waits for the tab's
    /// first page and the first group's tickets, then exits 0.
    void duplicatesTabShots()
    {
        shootTab(QStringLiteral("duplicates.bmp"), 10, [](MainWindow &w) -> QWidget * { return w.duplicatesPane(); },
                 &ScreenshotRunner::setDuplicatesTab, [](MainWindow &window) {
                     const DuplicateGroupsModel *groups = window.duplicatesPane()->groupsModel();
                     QVERIFY(groups->rowCount() > 0);
                     const auto *table = window.duplicatesPane()->findChild<QTableView *>(QStringLiteral("groupsTable"));
                     QVERIFY(table);
                     QCOMPARE(table->currentIndex().row(), 0);
                 });
    }

    /// `--screenshot-tab proposals`, 5 times under CPU load: the Proposals tab loads as the
    /// window is built (before the runner watches it); the shot still waits for that list,
    /// then exits 0.
    void proposalsTabShots()
    {
        shootTab(QStringLiteral("proposals.bmp"), 5, [](MainWindow &w) -> QWidget * { return w.proposalsPane(); },
                 &ScreenshotRunner::setProposalsTab, [](MainWindow &) {});
    }

    /// 200 in-process runs of triagectl's `show` and `list` (Triagectl::run), then 12 of
    /// each as processes, under CPU load.
    void triagectlRuns()
    {
        FILE *out = std::fopen("/dev/null", "w");
        QVERIFY(out);
        CpuLoad load;
        QElapsedTimer took;
        took.start();
        for (int run = 1; run <= 200; ++run) {
            const bool show = run % 2 == 1;
            const QStringList args = QStringList{QStringLiteral("triagectl")} + m_urls
                + (show ? QStringList{QStringLiteral("show"), m_firstKey}
                        : QStringList{QStringLiteral("list"), QStringLiteral("unknown")});
            ctl::Triagectl ctl(out, out);
            const int rc = ctl.run(args);
            QVERIFY2(rc == 0, qPrintable(QStringLiteral("in-process run %1 (%2): exit %3").arg(run).arg(args.join(' ')).arg(rc)));
        }
        std::fclose(out);
        for (int run = 1; run <= 24; ++run) {
            const bool show = run % 2 == 1;
            QProcess p;
            p.start(QStringLiteral(TRIAGECTL_PATH),
                    m_urls + (show ? QStringList{QStringLiteral("show"), m_firstKey, QStringLiteral("--format"), QStringLiteral("json")}
                                   : QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--format"),
                                                 QStringLiteral("csv"), QStringLiteral("--limit"), QStringLiteral("1")}));
            QVERIFY(p.waitForStarted(60000));
            QVERIFY2(p.waitForFinished(60000), qPrintable(QStringLiteral("process run %1 did not end within 60 s").arg(run)));
            QCOMPARE(p.exitStatus(), QProcess::NormalExit);
            QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));
            const QByteArray stdoutText = p.readAllStandardOutput();
            if (show) {
                QVERIFY2(stdoutText.contains("\"idem_key\": \"" + m_firstKey.toUtf8() + '"'), stdoutText.left(300).constData());
            } else {
                // The header and exactly one row, each ending in CRLF (RFC 4180).
                QCOMPARE(stdoutText.count("\r\n"), 2);
                QVERIFY2(stdoutText.startsWith("idem_key,"), stdoutText.left(300).constData());
            }
        }
        qInfo("200 in-process and 24 process runs of triagectl under CPU load in %lld ms", took.elapsed());
    }
};

QTEST_MAIN(TestStartRace)
#include "tst_start_race.moc"
