// DuplicateGroupsModel and CompensationsModel under QAbstractItemModelTester on a seeded
// SQLite database: exact groups in keyset order with every page size, the filters, the
// columns; the compensations list with its status filter.
#include "BusinessIdTestUtil.h"
#include "UiCompFixture.h"

#include "CompensationRules.h"
#include "CompensationsModel.h"
#include "DuplicateGroupsModel.h"
#include "MarkRules.h"

#include <QAbstractItemModelTester>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// Pages `model` to the end (the GUI thread spins while pages arrive); returns its keys.
QStringList loadAll(DuplicateGroupsModel &model)
{
    for (int guard = 0; guard < 100 && !model.atEnd() && model.lastError().isEmpty(); ++guard) {
        if (model.canFetchMore({}))
            model.fetchMore({});
        if (!QTest::qWaitFor([&] { return !model.isLoading(); }, 10000))
            break;
    }
    QStringList keys;
    for (int r = 0; r < model.rowCount(); ++r)
        keys << model.index(r, DuplicateGroupsModel::KeyColumn).data().toString();
    return keys;
}

} // namespace

class TestModelsUiCompensation : public QObject {
    Q_OBJECT
private slots:
    void duplicateGroups_data();
    void duplicateGroups();
    void duplicateFilters();
    void duplicateScanStop();
    void compensations();
    void rulesTheDialogsUse();
};

void TestModelsUiCompensation::duplicateGroups_data()
{
    QTest::addColumn<int>("pageSize");
    for (const int n : {1, 2, 100})
        QTest::addRow("page%d", n) << n;
}

void TestModelsUiCompensation::duplicateGroups()
{
    QFETCH(int, pageSize);
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    const QString e = seedUiFixture(db);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    Workspace ws(db.config());
    DuplicateGroupsModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy pages(&model, &DuplicateGroupsModel::pageLoaded);
    QVERIFY(pages.isValid());
    QCOMPARE(model.canFetchMore({}), false); // nothing before setFilter()/refresh()
    model.setPageSize(pageSize);
    model.setFilter(DuplicateFilter{});
    QCOMPARE(loadAll(model), (QStringList{kGroupB, kGroupA}));
    QVERIFY(model.atEnd());
    QVERIFY(!model.canFetchMore({}));
    QVERIFY(model.lastError().isEmpty());
    QCOMPARE(model.columnCount(), int(DuplicateGroupsModel::ColumnCount));

    const int a = model.findKey(kGroupA);
    QCOMPARE(a, 1);
    QCOMPARE(model.index(a, DuplicateGroupsModel::SizeColumn).data().toInt(), 3);
    QCOMPARE(model.index(a, DuplicateGroupsModel::LiveColumn).data().toInt(), 3);
    QCOMPARE(model.index(a, DuplicateGroupsModel::TenantsColumn).data().toString(), QStringLiteral("acme"));
    QCOMPARE(model.index(a, DuplicateGroupsModel::FirstCreatedColumn).data().toString(), QStringLiteral("2026-01-01 00:01:40"));
    QCOMPARE(model.index(a, DuplicateGroupsModel::FirstCreatedColumn).data(roles::FullText).toString(),
             QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QCOMPARE(model.index(a, DuplicateGroupsModel::LastCreatedColumn).data(roles::FullText).toString(),
             QStringLiteral("2026-01-01T00:04:10.000000Z"));
    QCOMPARE(model.index(a, DuplicateGroupsModel::RecordColumn).data().toString(), QStringLiteral("PROCESSING"));
    QVERIFY(model.index(a, DuplicateGroupsModel::RecordColumn).data(roles::Tone).isValid());
    QCOMPARE(model.index(a, 0).data(DuplicateGroupsModel::IdemKeyRole).toString(), kGroupA);
    QCOMPARE(model.index(a, 0).data(DuplicateGroupsModel::GroupRole).value<DuplicateGroup>().live, 3);
    QCOMPARE(model.group(0).tenants, QStringList{QStringLiteral("globex")});
    QCOMPARE(model.scanProgress(), 1.0);
    QCOMPARE(model.scannedTo(), QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QCOMPARE(model.oldestAt(), QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QCOMPARE(model.headerData(DuplicateGroupsModel::RecordColumn, Qt::Horizontal).toString(), QStringLiteral("Record"));

    // A refresh drops everything and loads the same groups again.
    model.refresh();
    QCOMPARE(loadAll(model), (QStringList{kGroupB, kGroupA}));

    // The full scan on demand: after a window page (a 1 ms budget stops it after one
    // window), every remaining group in one statement; announced start and end, progress 1.
    model.setScanBudgetMs(1);
    model.setPageSize(1); // the first page stops after group B
    QSignalSpy scanning(&model, &DuplicateGroupsModel::scanningAllChanged);
    QSignalSpy progress(&model, &DuplicateGroupsModel::scanProgressChanged);
    model.refresh();
    QTRY_VERIFY(!model.isLoading());
    QVERIFY(!model.atEnd());
    model.scanAll();
    QTRY_VERIFY_WITH_TIMEOUT(model.atEnd() && !model.isLoading(), 10000);
    QCOMPARE(scanning.count(), 2);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.group(0).idemKey, kGroupB);
    QVERIFY(!model.isScanningAll());
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);
    model.scanAll(); // at the end: nothing to do
    QVERIFY(!model.isScanningAll());
}

void TestModelsUiCompensation::duplicateScanStop()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    const QString e = seedUiFixture(db);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    Workspace ws(db.config());
    DuplicateGroupsModel model(&ws);
    QAbstractItemModelTester tester(&model);
    model.setPageSize(1);
    model.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), 1);

    // The ticket worker is held busy, so the full scan's statement waits behind it; Stop
    // cancels it there: nothing fails, the group shown stays, Scan all is offered again.
    QSemaphore started, release;
    auto busy = ws.worker(DbRole::Ticket).run<Done>([&](DbSession &) {
        started.release();
        release.acquire();
        return Done{};
    });
    started.acquire();
    QSignalSpy errors(&model, &DuplicateGroupsModel::errorOccurred);
    model.scanAll();
    QVERIFY(model.isScanningAll());
    QVERIFY(model.isLoading());
    model.stopScan();
    QVERIFY(!model.isScanningAll());
    release.release();
    busy.waitForFinished();
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(errors.count(), 0);
    QCOMPARE(model.lastError(), QString());
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.group(0).idemKey, kGroupB);
    QVERIFY(!model.atEnd());

    // Scan all again: the rest arrives.
    model.scanAll();
    QTRY_VERIFY_WITH_TIMEOUT(model.atEnd() && !model.isLoading() && !model.isScanningAll(), 10000);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.group(1).idemKey, kGroupA);
}

void TestModelsUiCompensation::duplicateFilters()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    const QString e = seedUiFixture(db);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    Workspace ws(db.config());
    DuplicateGroupsModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);

    DuplicateFilter f;
    f.includeResolved = true;
    model.setFilter(f);
    QCOMPARE(loadAll(model), (QStringList{kGroupC, kGroupB, kGroupA}));
    const int c = model.findKey(kGroupC);
    QCOMPARE(model.index(c, DuplicateGroupsModel::LiveColumn).data().toInt(), 1);
    QCOMPARE(model.index(c, DuplicateGroupsModel::RecordColumn).data().toString(), QStringLiteral("SUCCESS"));

    f = {};
    f.tenant = QStringLiteral("globex");
    model.setFilter(f);
    QCOMPARE(loadAll(model), QStringList{kGroupB});

    f = {};
    f.keySubstring = QStringLiteral("dup-a");
    model.setFilter(f);
    QCOMPARE(loadAll(model), QStringList{kGroupA});

    // Replacing the filter while a page is in flight drops that page (generation counter).
    f = {};
    model.setFilter(f);
    f.tenant = QStringLiteral("nobody");
    model.setFilter(f);
    QCOMPARE(loadAll(model), QStringList{});
    QVERIFY(model.atEnd());
}

void TestModelsUiCompensation::compensations()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    QString e = seedUiFixture(db);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    UpstreamSimulatorProcess sim;
    QVERIFY2(sim.start(db.url(), &e), qPrintable(e));
    SimControl ctl(sim.baseUrl());
    Workspace ws(db.config());
    CompensationRunner runner(ws, configsFor(cancelConfig(sim.baseUrl(), 1500, true)));
    CompensationsModel model(&runner);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&model, &CompensationsModel::loaded);
    QVERIFY(loaded.isValid());
    {
        const int before = int(loaded.count());
        model.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 10000);
    }
    QCOMPARE(model.rowCount(), 0);

    // Two compensations: #2 succeeds, #5 stays UNKNOWN (HTTP 500 once).
    auto request = [](const QString &key, qint64 target) {
        CompensationRequest r;
        r.sourceKey = key;
        r.action = QStringLiteral("cancel_ticket");
        r.target = QString::number(target);
        r.reason = QStringLiteral("model test");
        r.operatorName = QStringLiteral("alice");
        return r;
    };
    QCOMPARE(compensationOutcomeName(runner.start(request(kGroupA, 2)).result().kind), QStringLiteral("succeeded"));
    QVERIFY(ctl.fault(QStringLiteral("/tickets/*/cancel"), QStringLiteral("http_500"), 0, 1) > 0);
    QCOMPARE(compensationOutcomeName(runner.start(request(kGroupB, 5)).result().kind), QStringLiteral("unknown"));

    {
        const int before = int(loaded.count());
        model.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 10000);
    }
    QCOMPARE(model.rowCount(), 2);
    const QString k2 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("2"), kGroupA);
    const QString k5 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("5"), kGroupB);
    QCOMPARE(model.index(0, CompensationsModel::CompKeyColumn).data().toString(), k2);
    QCOMPARE(model.index(0, CompensationsModel::StatusColumn).data().toString(), QStringLiteral("SUCCEEDED"));
    QCOMPARE(model.index(0, CompensationsModel::TargetColumn).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(0, CompensationsModel::SourceColumn).data().toString(), kGroupA);
    QCOMPARE(model.index(1, CompensationsModel::CompKeyColumn).data().toString(), k5);
    QCOMPARE(model.index(1, CompensationsModel::StatusColumn).data().toString(), QStringLiteral("UNKNOWN"));
    QVERIFY(model.index(1, CompensationsModel::StatusColumn).data(roles::Tone).isValid());
    QCOMPARE(model.index(1, 0).data(CompensationsModel::RowRole).value<CompensationRow>().target, QStringLiteral("5"));

    {
        const int before = int(loaded.count());
        model.setStatusFilter(CompensationStatus::Unknown);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 10000);
    }
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.findKey(k5), 0);
    {
        const int before = int(loaded.count());
        model.setStatusFilter(CompensationStatus::Intent);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 10000);
    }
    QCOMPARE(model.rowCount(), 0);
    {
        const int before = int(loaded.count());
        model.setStatusFilter(CompensationStatus::Succeeded);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 10000);
    }
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.findKey(k2), 0);
}

// The pure rules CompensateDialog, DuplicatesPane, CompensationsPane and MarkDialog call
// instead of deciding themselves (no database: exact answers for each case).
void TestModelsUiCompensation::rulesTheDialogsUse()
{
    // Which tickets of a group are compensated: not the canonical one, not CANCELLED ones.
    auto ticket = [](qint64 id, std::optional<QString> status) {
        TicketRow t;
        t.id = bid(id);
        t.status = std::move(status);
        return t;
    };
    const QVector<TicketRow> tickets{ticket(5, QStringLiteral("OPEN")), ticket(7, QStringLiteral("CANCELLED")),
                                     ticket(9, QStringLiteral("OPEN")), ticket(11, std::nullopt)};
    QCOMPARE(ticketsToCompensate(tickets, bid(5)), (QVector<BusinessId>{bid(9), bid(11)}));
    QCOMPARE(ticketsToCompensate(tickets, std::nullopt), (QVector<BusinessId>{bid(5), bid(9), bid(11)}));
    QCOMPARE(ticketsToCompensate({}, bid(5)), QVector<BusinessId>{});

    // Settled, resumable, runnable.
    QVERIFY(compensationSettled(CompensationStatus::Succeeded));
    QVERIFY(!compensationSettled(CompensationStatus::Unknown));
    QVERIFY(!compensationSettled(std::nullopt));
    QVERIFY(compensationResumable(CompensationStatus::Intent));
    QVERIFY(compensationResumable(CompensationStatus::Unknown));
    QVERIFY(!compensationResumable(CompensationStatus::Succeeded));
    QVERIFY(!compensationResumable(CompensationStatus::Failed));
    QVERIFY(!compensationResumable(std::nullopt));
    using Kind = CompensationOutcome::Kind;
    const CompensationPlanEntry planned{std::nullopt, Kind::Planned, false, true};
    QVERIFY(compensationRunnable(planned, false));
    QVERIFY(!compensationRunnable({std::nullopt, Kind::Planned, false, false}, false)); // no key rendered
    QVERIFY(!compensationRunnable({CompensationStatus::Succeeded, Kind::Existing, false, true}, false));
    QVERIFY(compensationRunnable({CompensationStatus::Unknown, Kind::Unknown, false, true}, false)); // resume
    QVERIFY(compensationRunnable({std::nullopt, Kind::Error, false, true}, false));
    QVERIFY(compensationRunnable({std::nullopt, std::nullopt, false, true}, false)); // running / not planned yet
    QVERIFY(!compensationRunnable({std::nullopt, Kind::Refused, false, true}, true));  // no override sets it aside
    QVERIFY(!compensationRunnable({std::nullopt, Kind::Refused, true, true}, false)); // overridable, not overriding
    QVERIFY(compensationRunnable({std::nullopt, Kind::Refused, true, true}, true));

    // The compare-and-set expectation takes the version only where the table has one.
    RecordDetail r;
    r.statusCode = 0;
    r.updatedAt = QStringLiteral("2026-12-01T10:00:00.000000Z");
    r.version = 7;
    r.hasVersionColumn = false;
    ExpectedState e = expectedStateOf(r);
    QCOMPARE(e.status, std::optional<qint64>(0));
    QCOMPARE(e.updatedAt, parseUtcMicros(QStringLiteral("2026-12-01T10:00:00.000000Z")));
    QVERIFY(!e.version);
    r.hasVersionColumn = true;
    e = expectedStateOf(r);
    QCOMPARE(e.version, std::optional<qint64>(7));
    r.statusCode.reset();
    r.version.reset();
    e = expectedStateOf(r);
    QVERIFY(!e.status);
    QVERIFY(!e.version);
}

QTEST_GUILESS_MAIN(TestModelsUiCompensation)
#include "tst_models_ui_compensation.moc"
