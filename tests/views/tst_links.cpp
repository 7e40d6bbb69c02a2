// Deep links in the console (DESIGN.md §7 "Links"), offscreen on the window fixture
// (tests/support/WindowFixture.h) on SQLite: "Copy link" in the key detail and the Incident
// view puts the exact link on the clipboard; a window link opens the Incident tab on its
// window and filters with its event selected (fetched page by page), says when the event is
// not there, and a window older than the records still held gets the retention banner;
// "Export…" writes the bundle or its report by the file name (saves incident-export.png).
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "Bundle.h"
#include "DeepLink.h"
#include "IncidentView.h"
#include "KeyDetailView.h"
#include "MainWindow.h"
#include "MessageBar.h"
#include "WindowEventsModel.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestLinks : public QObject {
    Q_OBJECT
private slots:
    void keyDetailCopyLink();
    void windowLinkOpensAndCopies();
    void exportFromTheView();
};

void TestLinks::keyDetailCopyLink()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    TRIAGE_OK(record(db, QStringLiteral("k/ä #1?&"), 130000, 130000, 0));
    Workspace ws(db.config());
    MainWindow w(&ws);
    w.show();
    DeepLink link;
    link.key = QStringLiteral("k/ä #1?&");
    w.openLink(link);
    KeyDetailView *detail = w.detailView();
    QTRY_VERIFY_WITH_TIMEOUT(detail->hasDetail(), 30000);
    QCOMPARE(detail->key(), link.key);
    QVERIFY(detail->detail().record);
    QVERIFY(detail->copyLinkButton()->isEnabled());
    detail->copyLinkButton()->click();
    QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("triage://key/k%2F%C3%A4%20%231%3F%26"));
    QCOMPARE(detail->actionBar()->text(), QStringLiteral("Link copied: triage://key/k%2F%C3%A4%20%231%3F%26"));
}

void TestLinks::windowLinkOpensAndCopies()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    TRIAGE_OK(intent(db, QStringLiteral("k:late"), 1000000));
    Workspace ws(db.config());
    MainWindow w(&ws);
    w.show();
    IncidentView *view = w.incidentView();
    view->eventsModel()->setPageSize(2); // the linked event is found page by page
    QTableView *table = view->eventTable();

    // The wide window [100 s, 1100 s) with its 6th event (intent.attempt of k:b) selected.
    WindowQuery q;
    q.from = at(100000);
    q.to = at(1100000);
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    w.showIncident(q.from, q.to);
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    const QString eventId = table->model()->index(5, 0).data(WindowEventsModel::EventIdRole).toString();
    QVERIFY(!eventId.isEmpty());
    const auto event = std::optional(std::pair(EventKind::IntentAttempt, eventId));

    DeepLink link;
    link.kind = DeepLink::Kind::Window;
    link.query = q;
    link.event = event;
    const QString eventKey = table->model()->index(5, 0).data(WindowEventsModel::IdemKeyRole).toString();
    QVERIFY(!eventKey.isEmpty());
    QSignalSpy detailLoaded(w.detailView(), &KeyDetailView::detailLoaded);
    w.openLink(link);
    QTRY_COMPARE_WITH_TIMEOUT(table->currentIndex().row(), 5, 30000);
    // The linked event opens as a double-click: its key in the detail pane.
    QTRY_VERIFY_WITH_TIMEOUT(!detailLoaded.isEmpty(), 30000);
    QCOMPARE(w.detailView()->detail().idemKey, eventKey);
    QCOMPARE(view->currentLink(), windowLink(q, event));
    view->findChild<QPushButton *>(QStringLiteral("incidentCopyLink"))->click();
    QCOMPARE(QGuiApplication::clipboard()->text(), windowLink(q, event));
    QCOMPARE(view->messageBar()->text(), QStringLiteral("Link copied: ") + windowLink(q, event));
    // The fixture's oldest record (k:z, 99.999 s) is older than the window: no banner.
    QTest::qWait(200);
    QCOMPARE(view->retentionBar()->text(), QString());

    // A link with filters and an event that is not in the window.
    WindowQuery filtered = q;
    filtered.keySubstring = QStringLiteral(":b");
    filtered.kinds = {EventKind::IntentAttempt, EventKind::TicketCreated};
    link.query = filtered;
    link.event = std::pair(EventKind::TicketCreated, QStringLiteral("999"));
    w.openLink(link);
    QTRY_COMPARE_WITH_TIMEOUT(view->messageBar()->text(),
                              QStringLiteral("The linked event ticket.created 999 is not in this window (any more)."), 30000);
    QCOMPARE(view->eventsModel()->eventCount(), 2);
    QCOMPARE(view->currentLink(), windowLink(filtered)); // nothing selected
    // The kinds no filter box shows are said beside the boxes; clicking clears them and loads
    // every kind (the key filter stays).
    // A figure the kinds leave out says why in the summary's tooltip.
    QCOMPARE(view->findChild<QLabel *>(QStringLiteral("incidentSummary"))->toolTip(),
             QStringLiteral("records still PROCESSING: not counted (filtered out by --kind: record.created not selected)"));
    auto *kept = view->findChild<QPushButton *>(QStringLiteral("incidentKeptFilters"));
    QVERIFY(kept->isVisible());
    QVERIFY(kept->isEnabled());
    QCOMPARE(kept->text(), QStringLiteral("kinds intent.attempt, ticket.created  \u2715"));
    QSignalSpy reloaded(view, &IncidentView::windowLoaded);
    kept->click();
    QVERIFY(reloaded.wait(30000));
    QVERIFY(!kept->isVisible());
    QCOMPARE(view->currentLink(), windowLink([&] {
                 WindowQuery unfiltered = filtered;
                 unfiltered.kinds.clear();
                 return unfiltered;
             }()));

    // A window reaching back before the oldest record still held: the banner says so.
    link.query = WindowQuery{};
    link.query.from = at(0);
    link.query.to = at(1100000);
    link.event.reset();
    w.openLink(link);
    QTRY_COMPARE_WITH_TIMEOUT(view->retentionBar()->text(),
                              QStringLiteral("The idempotency store holds no record created before 2026-01-01 00:01:39 UTC "
                                             "(records expire): events of this window before then may have been purged."),
                              30000);
    QCOMPARE(view->retentionBar()->level(), MessageBar::Level::Warning);
    // Loading another window clears it.
    w.showIncident(q.from, q.to);
    QCOMPARE(view->retentionBar()->text(), QString());
}

void TestLinks::exportFromTheView()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    MainWindow w(&ws);
    w.resize(1400, 900);
    w.show();
    IncidentView *view = w.incidentView();
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    w.showIncident(at(100000), at(200000));
    QVERIFY(loaded.wait(30000));
    QTemporaryDir dir;
    QSignalSpy done(view, &IncidentView::exportFinished);

    // The bundle: the window's 8 events, its hash checked.
    const QString json = dir.filePath(QStringLiteral("window.json"));
    view->exportTo(json);
    QVERIFY(done.wait(60000));
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QString error;
    const auto bundle = readBundleJson(f.readAll(), &error);
    QVERIFY2(bundle, qPrintable(error));
    QCOMPARE(bundle->events.size(), 8);
    QVERIFY(verifyBundleHash(*bundle));
    QCOMPARE(bundle->query.from, at(100000));
    QCOMPARE(done.at(0).at(1).toString(),
             QStringLiteral("Exported 8 events to %1 (SHA-256 %2\u2026)").arg(json, bundle->eventsSha256.left(12)));

    // The report by its name: HTML, then PDF.
    done.clear();
    const QString html = dir.filePath(QStringLiteral("window.html"));
    view->exportTo(html);
    QVERIFY(done.wait(60000));
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
    QFile h(html);
    QVERIFY(h.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(h.readAll());
    QCOMPARE(text.count(QStringLiteral("<tr class=\"ev")), 8);
    QVERIFY(text.contains(QStringLiteral("<svg")));
    done.clear();
    const QString pdf = dir.filePath(QStringLiteral("window.PDF"));
    view->exportTo(pdf);
    QVERIFY(done.wait(60000));
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    QVERIFY(p.read(5) == "%PDF-");
    QVERIFY(w.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/incident-export.png")));

    // A name of another kind: said, nothing exported.
    done.clear();
    view->exportTo(dir.filePath(QStringLiteral("window.txt")));
    QCOMPARE(done.size(), 1);
    QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("Export: name a .json, .html or .pdf file (%1)").arg(dir.filePath(QStringLiteral("window.txt"))));
}

QTEST_MAIN(TestLinks)
#include "tst_links.moc"
