// The offline viewer (DESIGN.md §7 "Offline viewer"): a hand-built bundle written with
// writeBundleJson(), read back and shown by BundleWindow with no database: every event in the
// list, the key's detail and "As of T" from the bundle, pins and notes, every write action
// disabled, the hash "not checked: no database"; a bundle whose events were changed says so.
#include "Bundle.h"
#include "BundleWindow.h"
#include "IncidentPanel.h"
#include "IncidentView.h"
#include "KeyDetailView.h"
#include "MessageBar.h"
#include "ReplayPanel.h"
#include "AsOfModel.h"
#include "WindowEventsModel.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QFile>
#include <QTemporaryDir>
#include <QTableView>
#include <QTest>

#include <limits>

using namespace triage;

namespace {

WindowEvent event(const QString &atText, EventKind kind, const QString &id, const QString &key, const QString &status,
                  const QString &detail, const QString &actor = {})
{
    WindowEvent e;
    e.atText = atText;
    e.at = *parseUtcMicros(atText);
    e.kind = kind;
    e.store = storeOf(kind);
    e.id = id;
    e.idemKey = key;
    e.status = status;
    e.detail = detail;
    e.actor = actor;
    return e;
}

/// A bundle of 4 events (one key with a detail, one without), an incident with a pin and a note.
IncidentBundle handBuilt()
{
    IncidentBundle b;
    b.toolVersion = QStringLiteral("0.1.0");
    b.generatedAt = QStringLiteral("2026-01-02T00:00:00.000000Z");
    b.generatedBy = QStringLiteral("alice");
    b.query.from = *parseUtcMicros(QStringLiteral("2026-01-01T00:00:00.000000Z"));
    b.query.to = *parseUtcMicros(QStringLiteral("2026-01-01T01:00:00.000000Z"));
    b.events = {
        event(QStringLiteral("2026-01-01T00:01:00.000000Z"), EventKind::IntentAttempt, QStringLiteral("7"), QStringLiteral("k:a"),
              QStringLiteral("UNKNOWN"), QStringLiteral("create_ticket"), QStringLiteral("agent-1")),
        event(QStringLiteral("2026-01-01T00:01:00.500000Z"), EventKind::TicketCreated, QStringLiteral("T-1"), QStringLiteral("k:a"),
              QStringLiteral("OPEN"), QStringLiteral("VPN down")),
        event(QStringLiteral("2026-01-01T00:20:00.000000Z"), EventKind::Audit, QStringLiteral("3"), QStringLiteral("k:a"),
              QStringLiteral("applied"), QStringLiteral("mark_success"), QStringLiteral("bob")),
        event(QStringLiteral("2026-01-01T00:21:00.000000Z"), EventKind::RecordCreated, QStringLiteral("9"), QStringLiteral("k:b"),
              QString(), QStringLiteral("now PROCESSING")),
    };
    b.eventsSha256 = bundleEventsSha256(b.events);
    KeyDetail a;
    a.idemKey = QStringLiteral("k:a");
    IntentAttempt attempt;
    attempt.id = 7;
    attempt.taskId = QStringLiteral("task_1");
    attempt.stepId = QStringLiteral("step_1");
    attempt.action = QStringLiteral("create_ticket");
    attempt.idemKey = a.idemKey;
    attempt.status = QStringLiteral("UNKNOWN");
    attempt.createdAt = attempt.updatedAt = QStringLiteral("2026-01-01T00:01:00.000000Z");
    a.attempts << attempt;
    b.keys << a;
    IncidentDetail incident;
    incident.incident.id = 4;
    incident.incident.title = QStringLiteral("Ticket API timeouts");
    incident.incident.query = b.query;
    IncidentPin pin;
    pin.kind = EventKind::IntentAttempt;
    pin.eventId = QStringLiteral("7");
    pin.eventAt = QStringLiteral("2026-01-01T00:01:00.000000Z");
    pin.note = QStringLiteral("first UNKNOWN");
    pin.event = b.events.first();
    incident.pins << pin;
    IncidentNote note;
    note.operatorName = QStringLiteral("alice");
    note.at = QStringLiteral("2026-01-01T00:30:00.000000Z");
    note.text = QStringLiteral("upstream confirmed the outage");
    incident.notes << note;
    b.incident = incident;
    return b;
}

QStringList rowsOf(QTableView *table)
{
    QStringList out;
    for (int r = 0; r < table->model()->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < table->model()->columnCount(); ++c)
            cells << table->model()->index(r, c).data().toString();
        out << cells.join(QStringLiteral(" | "));
    }
    return out;
}

} // namespace

class TestBundleWindow : public QObject {
    Q_OBJECT
private slots:
    void offline();
    void tampered();
    void twoSteps();
    void twoStepsLateFault();
};

void TestBundleWindow::offline()
{
    QString error;
    std::optional<IncidentBundle> read = readBundleJson(writeBundleJson(handBuilt()), &error);
    QVERIFY2(read, qPrintable(error));
    BundleWindow w(std::make_shared<const IncidentBundle>(*read), QStringLiteral("/tmp/outage.json"), nullptr);
    w.resize(1400, 900);
    IncidentView *view = w.incidentView();
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    QSignalSpy hashed(&w, &BundleWindow::hashChecked);
    w.show();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(w.hashDone(), 30000);
    QCOMPARE(w.windowTitle(), QStringLiteral("outage.json \u2014 bundle (read-only) \u2014 Triage Console"));
    QCOMPARE(w.hashText(), QStringLiteral("events hash %1 \u2014 not checked: no database").arg(read->eventsSha256));

    // Every event, as the live list shows them (a gap row between 00:01 and 00:20).
    QCOMPARE(rowsOf(view->eventTable()), (QStringList{
        QStringLiteral("2026-01-01T00:01:00.000000Z | intent | intent.attempt | UNKNOWN | k:a | agent-1 | create_ticket"),
        QStringLiteral("2026-01-01T00:01:00.500000Z | ticket | ticket.created | OPEN | k:a |  | VPN down"),
        QStringLiteral("\u2014 18 min without events \u2014 |  |  |  |  |  | "),
        QStringLiteral("2026-01-01T00:20:00.000000Z | console | audit | applied | k:a | bob | mark_success"),
        QStringLiteral("2026-01-01T00:21:00.000000Z | idempotency | record.created |  | k:b |  | now PROCESSING")}));
    QVERIFY(view->eventTable()->model()->index(0, 0).data(WindowEventsModel::PinnedRole).toBool());

    // Read-only: range, filters, Load and every incident action disabled; pins and notes shown.
    QVERIFY(view->isOffline());
    for (const char *name : {"incidentFrom", "incidentTo", "incidentBizType", "incidentTenant", "incidentKey", "incidentTask", "incidentLoad",
                             "preset15", "preset60"})
        QVERIFY2(!view->findChild<QWidget *>(QString::fromLatin1(name))->isEnabled(), name);
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentFrom"))->text(), QStringLiteral("2026-01-01 00:00:00 UTC"));
    // The bundle's filters no box shows: said, not clearable (the bundle holds only these events).
    auto *kept = view->findChild<QPushButton *>(QStringLiteral("incidentKeptFilters"));
    QCOMPARE(kept->isVisibleTo(view), !read->query.kinds.isEmpty() || !read->query.stores.isEmpty() || !read->query.statuses.isEmpty());
    QVERIFY(!kept->isEnabled() || !kept->isVisibleTo(view));
    IncidentPanel *panel = view->incidentPanel();
    QVERIFY(!panel->pinButton()->isEnabled());
    QVERIFY(!panel->incidentCombo()->isEnabled());
    // The bundle's incident is open: said so, before the title (a narrow combo cuts the title).
    QCOMPARE(panel->incidentCombo()->currentText(), QStringLiteral("#4 (open) Ticket API timeouts"));
    QCOMPARE(panel->pinList()->count(), 1);
    QCOMPARE(panel->noteList()->count(), 1);
    QVERIFY2(panel->noteList()->item(0)->text().endsWith(QStringLiteral("alice: upstream confirmed the outage")),
             qPrintable(panel->noteList()->item(0)->text()));

    // The playhead on k:a's audit row: "As of T" from the bundle's detail; the menu offers its
    // task, but no reload (a bundle holds its own window only).
    ReplayPanel *replay = view->replayPanel();
    QSignalSpy asOf(replay, &ReplayPanel::asOfLoaded);
    view->eventTable()->setCurrentIndex(view->eventTable()->model()->index(3, 0));
    QVERIFY(asOf.wait(30000));
    QVERIFY2(replay->asOfModel()->lines().contains(QStringLiteral("Intent log: 1 attempt at T")),
             qPrintable(replay->asOfModel()->lines().join(QLatin1Char('\n'))));
    std::unique_ptr<QMenu> menu(replay->contextMenuFor(3));
    QStringList texts;
    for (const QAction *a : menu->actions()) {
        texts << a->text();
        QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
    }
    QCOMPARE(texts, (QStringList{QStringLiteral("Same key (k:a)"), QStringLiteral("Same task (task_1)"),
                                 QStringLiteral("\u00B130 s around 2026-01-01T00:20:00.000000Z UTC (all keys)")}));

    // Double-click: the detail pane shows the key from the bundle, marks disabled; a key the
    // bundle holds no detail for says so.
    QSignalSpy detail(w.detailView(), &KeyDetailView::detailLoaded);
    emit view->keyActivated(QStringLiteral("k:a"));
    QVERIFY(detail.wait(30000));
    QCOMPARE(w.detailView()->detail().attempts.size(), 1);
    QVERIFY(!w.detailView()->markSuccessButton()->isEnabled());
    QCOMPARE(w.detailView()->markSuccessButton()->toolTip(), QStringLiteral("A bundle is read-only: marks are disabled"));
    QVERIFY(!w.detailView()->queryButton()->isEnabled());
    emit view->keyActivated(QStringLiteral("k:b"));
    QVERIFY(detail.wait(30000));
    QVERIFY2(w.detailView()->detail().warnings.contains(QStringLiteral("The bundle holds no detail for this key")),
             qPrintable(w.detailView()->detail().warnings.join(QLatin1Char('\n'))));
    QVERIFY(w.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/bundle-window.png")));

    // --incident-select's path: selecting a row fills the detail pane as a double-click does; a
    // gap row selects and opens nothing.
    QCOMPARE(view->activateEventRow(2), std::nullopt);
    QCOMPARE(view->activateEventRow(99), std::nullopt);
    QCOMPARE(view->eventTable()->currentIndex().row(), 3);
    QCOMPARE(view->activateEventRow(0), std::optional<QString>(QStringLiteral("k:a")));
    QVERIFY(detail.wait(30000));
    QCOMPARE(view->eventTable()->currentIndex().row(), 0);
    QCOMPARE(w.detailView()->detail().idemKey, QStringLiteral("k:a"));
    QCOMPARE(w.detailView()->detail().attempts.size(), 1);

    // Export… offline reads nothing again: .json writes the bundle shown, byte for byte.
    QTemporaryDir dir;
    QSignalSpy exported(view, &IncidentView::exportFinished);
    view->exportTo(dir.filePath(QStringLiteral("again.json")));
    QVERIFY(exported.wait(30000));
    QCOMPARE(exported.at(0).at(0).toBool(), true);
    QCOMPARE(exported.at(0).at(1).toString(), QStringLiteral("Exported 4 events to %1 (SHA-256 %2\u2026)")
                                                  .arg(dir.filePath(QStringLiteral("again.json")), read->eventsSha256.left(12)));
    QFile again(dir.filePath(QStringLiteral("again.json")));
    QVERIFY(again.open(QIODevice::ReadOnly));
    QCOMPARE(again.readAll(), writeBundleJson(*read));
}

void TestBundleWindow::tampered()
{
    IncidentBundle b = handBuilt();
    const QString recorded = b.eventsSha256;
    b.events[1].status = QStringLiteral("CANCELLED"); // changed after the export
    b.incident->incident.open = false; // a closed incident's bundle: said so
    BundleWindow w(std::make_shared<const IncidentBundle>(b), QStringLiteral("edited.json"), nullptr);
    QCOMPARE(w.incidentView()->incidentPanel()->incidentCombo()->currentText(), QStringLiteral("#4 (closed) Ticket API timeouts"));
    QTRY_VERIFY_WITH_TIMEOUT(w.hashDone(), 30000);
    QCOMPARE(w.hashText(), QStringLiteral("EVENTS HASH DOES NOT MATCH: the bundle records %1 but its events hash to %2 \u2014 the events "
                                          "were changed after the export; do not trust them")
                               .arg(recorded, bundleEventsSha256(b.events)));
}

namespace {

/// handBuilt() with `extra` more intent attempts of k:a after its events (past the first
/// events readBundleHead() reads), in window order.
IncidentBundle longBundle(int extra)
{
    IncidentBundle b = handBuilt();
    const UtcMicros start = *parseUtcMicros(u"2026-01-01T00:22:00Z");
    for (int i = 0; i < extra; ++i) {
        const UtcMicros at = start + qint64(i) * 100000;
        b.events << event(formatUtcMicros(at), EventKind::IntentAttempt, QString::number(100 + i), QStringLiteral("k:a"),
                          QStringLiteral("UNKNOWN"), QStringLiteral("create_ticket"), QStringLiteral("agent-1"));
    }
    b.eventsSha256 = bundleEventsSha256(b.events);
    return b;
}

} // namespace

void TestBundleWindow::twoSteps()
{
    // As --open-bundle opens a file: the head (header and first events) shows at once, the rest
    // is read on the window's pool; every event pages in, the hash is checked, keys and Export…
    // come from the whole bundle.
    const IncidentBundle b = longBundle(2 * kBundleFirstEvents);
    const QByteArray bytes = writeBundleJson(b);
    QString error;
    std::optional<BundleHead> head = readBundleHead(bytes, kBundleFirstEvents, &error);
    QVERIFY2(head, qPrintable(error));
    QVERIFY(!head->whole);
    BundleWindow w(std::move(*head), bytes, QStringLiteral("/tmp/long.json"), nullptr);
    w.resize(1400, 900);
    IncidentView *view = w.incidentView();
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    w.show();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(w.hashDone(), 30000);
    QCOMPARE(w.hashText(), QStringLiteral("events hash %1 \u2014 not checked: no database").arg(b.eventsSha256));
    view->scrollToTime(std::numeric_limits<qint64>::max());
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(view->eventsModel()->eventCount(), qint64(b.events.size()));
    QSignalSpy detail(w.detailView(), &KeyDetailView::detailLoaded);
    emit view->keyActivated(QStringLiteral("k:a"));
    QVERIFY(detail.wait(30000));
    QCOMPARE(w.detailView()->detail().attempts.size(), 1);
    QTemporaryDir dir;
    QSignalSpy exported(view, &IncidentView::exportFinished);
    view->exportTo(dir.filePath(QStringLiteral("again.json")));
    QVERIFY(exported.wait(30000));
    QCOMPARE(exported.at(0).at(0).toBool(), true);
    QFile again(dir.filePath(QStringLiteral("again.json")));
    QVERIFY(again.open(QIODevice::ReadOnly));
    QCOMPARE(again.readAll(), bytes);
}

void TestBundleWindow::twoStepsLateFault()
{
    // A fault past the first events: the first page shows, then the hash line says why the rest
    // cannot be read (in red), and a key's detail says so too.
    const IncidentBundle b = longBundle(2 * kBundleFirstEvents);
    QByteArray bytes = writeBundleJson(b);
    const qsizetype at = bytes.indexOf("\"intent.attempt\",\"1800\"");
    QVERIFY(at > 0);
    bytes.replace(at, 16, "\"intent.nope\"");
    QString error;
    std::optional<BundleHead> head = readBundleHead(bytes, kBundleFirstEvents, &error);
    QVERIFY2(head, qPrintable(error));
    BundleWindow w(std::move(*head), bytes, QStringLiteral("/tmp/bad.json"), nullptr);
    QSignalSpy loaded(w.incidentView(), &IncidentView::windowLoaded);
    w.show();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(w.hashDone(), 30000);
    QCOMPARE(w.hashText(), QStringLiteral("BUNDLE CANNOT BE READ WHOLE: malformed bundle: \"events[1704][2]\" names an unknown kind "
                                          "\"intent.nope\" \u2014 only its first events are shown; the events hash was not checked"));
    QSignalSpy detail(w.detailView(), &KeyDetailView::detailLoaded);
    emit w.incidentView()->keyActivated(QStringLiteral("k:a"));
    QVERIFY(detail.wait(30000));
    QVERIFY2(w.detailView()->detail().warnings.contains(
                 QStringLiteral("The bundle cannot be read whole: malformed bundle: \"events[1704][2]\" names an unknown kind \"intent.nope\"")),
             qPrintable(w.detailView()->detail().warnings.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestBundleWindow)
#include "tst_bundle_window.moc"
