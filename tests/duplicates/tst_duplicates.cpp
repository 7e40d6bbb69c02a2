// The Duplicate keys queue on a seeded fixture, on every backend: exact groups
// (unresolved by default, all with --all), inconsistencies, regenerated keys, group detail
// with payload differences and the proposed canonical ticket; keyset paging neither skips
// nor repeats, including groups whose last creation times tie.
#include "BusinessIdTestUtil.h"
#include "BackendTestUtil.h"
#include "ShapeExpect.h"
#include "KeyDetail.h"

#include "Duplicates.h"
#include "Workspace.h"

#include <QDateTime>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// A fixed time `sec` seconds after 2026-01-01T00:00:00Z as a native time literal of `db`'s
/// dialect (BackendTestUtil's insert*() turn it into epoch milliseconds on a shop row).
QString ts(const TestDatabase &db, qint64 sec)
{
    return timeLiteral(db, QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(sec).toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'000Z'")));
}

/// Ticket `id` (on a shop row the order ticketIdText(db, id)) through insertTickets(): the
/// same logical row in either shape.
QString ticket(const TestDatabase &db, int id, const QString &key, const QString &tenant, const QString &status, const QString &payload,
               qint64 sec)
{
    TicketSpec t;
    t.id = id;
    t.key = key.isEmpty() ? std::nullopt : std::optional<QString>(key);
    t.tenant = tenant;
    t.title = QStringLiteral("T");
    t.status = status;
    t.payload = payload;
    t.created = ts(db, sec);
    return insertTickets(db, {t});
}

QString record(const TestDatabase &db, const QString &key, int status, const QString &snapshot)
{
    RecordSpec r;
    r.key = key;
    r.status = QString::number(status);
    r.snapshot = snapshot.isEmpty() ? std::nullopt : std::optional<QString>(snapshot);
    r.updated = ts(db, 1);
    r.expire = ts(db, 3000);
    return insertRecords(db, {r});
}

QString intent(const TestDatabase &db, const QString &task, const QString &step, const QString &key, int sec)
{
    IntentSpec a;
    a.taskId = task;
    a.stepId = step;
    a.key = key;
    a.actor = std::nullopt;
    a.created = ts(db, sec);
    return insertIntents(db, {a});
}

/// The schema without the ticket backstop (duplicate keys must be insertable); on a shop
/// row the shop tables first (setUpSchema(), BackendTestUtil.h).
QString schema(const TestDatabase &db)
{
    Workspace ws(db.config());
    return setUpSchema(ws, false);
}

QString seed(const TestDatabase &db)
{
    // Payloads and snapshots name tickets with the ticket table's own id (ShapeExpect.h: a
    // number on the default schema, the order's UUID text on a shop row).
    auto id = [&](qint64 n) { return ticketIdLiteral(db, n); };
    const QString p1 = QStringLiteral("{\"ticket_id\":%1,\"title\":\"VPN\",\"prio\":\"P1\"}").arg(id(1));
    const QString p2 = QStringLiteral("{\"ticket_id\":%1,\"title\":\"VPN\",\"prio\":\"P2\"}").arg(id(2));
    QStringList errors{
        schema(db),
        ticket(db, 1, QStringLiteral("k:a"), QStringLiteral("acme"), QStringLiteral("OPEN"), p1, 100),
        ticket(db, 2, QStringLiteral("k:a"), QStringLiteral("acme"), QStringLiteral("OPEN"), p2, 200),
        ticket(db, 3, QStringLiteral("k:b"), QStringLiteral("globex"), QStringLiteral("OPEN"), QStringLiteral("{}"), 300),
        ticket(db, 4, QStringLiteral("k:b"), QStringLiteral("initech"), QStringLiteral("OPEN"), QStringLiteral("{}"), 310),
        ticket(db, 5, QStringLiteral("k:b"), QStringLiteral("globex"), QStringLiteral("CANCELLED"), QStringLiteral("{}"), 320),
        ticket(db, 6, QStringLiteral("k:c"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 400),
        ticket(db, 7, QStringLiteral("k:c"), QStringLiteral("acme"), QStringLiteral("CANCELLED"), QStringLiteral("{}"), 410),
        ticket(db, 8, QStringLiteral("k:d"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 500),
        ticket(db, 9, QStringLiteral("k:d"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 510),
        // k:g ties with k:d on the last creation time: the key breaks the tie.
        ticket(db, 12, QStringLiteral("k:g"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 500),
        ticket(db, 13, QStringLiteral("k:g"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 510),
        ticket(db, 10, QStringLiteral("k:e"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{\"ticket_id\":%1,\"x\":2}").arg(id(10)), 600),
        ticket(db, 11, QString(), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 700),
        ticket(db, 14, QString(), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 710),
        // k:h: the SUCCESS snapshot names ticket 15, since CANCELLED (an inconsistency).
        ticket(db, 15, QStringLiteral("k:h"), QStringLiteral("acme"), QStringLiteral("CANCELLED"), ticketIdPayload(db, 15), 150),
        ticket(db, 16, QStringLiteral("k:h"), QStringLiteral("acme"), QStringLiteral("OPEN"), ticketIdPayload(db, 16), 160),
        record(db, QStringLiteral("k:a"), 1, QStringLiteral("{\"prio\":\"P2\",\"ticket_id\":%1,\"title\":\"VPN\"}").arg(id(2))),
        record(db, QStringLiteral("k:b"), 0, {}),
        record(db, QStringLiteral("k:d"), 2, {}),
        record(db, QStringLiteral("k:e"), 1, QStringLiteral("{\"ticket_id\":%1,\"x\":1}").arg(id(10))),
        record(db, QStringLiteral("k:f"), 1, ticketIdPayload(db, 999)),
        record(db, QStringLiteral("k:h"), 1, ticketIdPayload(db, 15)),
        intent(db, QStringLiteral("task_1"), QStringLiteral("step_1"), QStringLiteral("task_1_step_1:a1"), 10),
        intent(db, QStringLiteral("task_1"), QStringLiteral("step_1"), QStringLiteral("task_1_step_1:a2"), 20),
        intent(db, QStringLiteral("task_1"), QStringLiteral("step_1"), QStringLiteral("task_1_step_1:a2"), 30),
        intent(db, QStringLiteral("task_1"), QStringLiteral("step_2"), QStringLiteral("task_1_step_2"), 40),
        intent(db, QStringLiteral("task_1"), QStringLiteral("step_2"), QStringLiteral("task_1_step_2"), 50),
        intent(db, QStringLiteral("task_2"), QStringLiteral("step_1"), QStringLiteral("x"), 60),
        intent(db, QStringLiteral("task_2"), QStringLiteral("step_1"), QStringLiteral("y"), 70),
    };
    errors.removeAll(QString());
    return errors.join(QLatin1Char('\n'));
}

QStringList groupKeys(Workspace &ws, const DuplicateFilter &f, int pageSize, int budgetMs = 0)
{
    QStringList keys;
    std::optional<DuplicateCursor> cursor;
    for (int guard = 0; guard < 100; ++guard) {
        const auto page = fetchDuplicateGroups(ws, f, cursor, pageSize, budgetMs).result();
        if (!page.ok()) {
            keys << QStringLiteral("ERROR ") + page.error->message;
            return keys;
        }
        for (const DuplicateGroup &g : page->groups)
            keys << g.idemKey;
        if (!page->next)
            break;
        cursor = page->next;
    }
    return keys;
}

/// `g` as one line: "key size live [tenants] first last record".
QString groupRow(const DuplicateGroup &g)
{
    return QStringLiteral("%1 %2 %3 [%4] %5 %6 %7")
        .arg(g.idemKey)
        .arg(g.size)
        .arg(g.live)
        .arg(g.tenantsText(QStringLiteral(",")), g.firstCreatedAt, g.lastCreatedAt, g.recordText());
}

/// The groups of fetchAllDuplicateGroups() after `after`, each as groupRow(); one
/// "ERROR …" line on failure.
QStringList fullScanRows(Workspace &ws, const DuplicateFilter &f, const std::optional<DuplicateCursor> &after = std::nullopt)
{
    const auto page = fetchAllDuplicateGroups(ws, f, after).result();
    if (!page.ok())
        return {QStringLiteral("ERROR ") + page.error->message};
    QStringList rows;
    for (const DuplicateGroup &g : page->groups)
        rows << groupRow(g);
    return rows;
}

/// The same rows from the window scan (fetchDuplicateGroups(), `pageSize` groups a page).
QStringList windowScanRows(Workspace &ws, const DuplicateFilter &f, int pageSize)
{
    QStringList rows;
    std::optional<DuplicateCursor> cursor;
    for (int guard = 0; guard < 1000; ++guard) {
        const auto page = fetchDuplicateGroups(ws, f, cursor, pageSize).result();
        if (!page.ok())
            return {QStringLiteral("ERROR ") + page.error->message};
        for (const DuplicateGroup &g : page->groups)
            rows << groupRow(g);
        if (!page->next)
            break;
        cursor = page->next;
    }
    return rows;
}

QStringList inconsistencies(Workspace &ws, int pageSize, const QString &keySubstring = {})
{
    QStringList rows;
    std::optional<qint64> after = 0;
    for (int guard = 0; after && guard < 100; ++guard) {
        const auto page = fetchInconsistencies(ws, *after, pageSize, keySubstring).result();
        if (!page.ok())
            return {QStringLiteral("ERROR ") + page.error->message};
        for (const DuplicateInconsistency &i : page->rows)
            rows << QStringLiteral("%1 %2 %3 %4").arg(inconsistencyKindName(i.kind), i.idemKey, recordStatusName(i.recordStatus)).arg(i.ticketId.text());
        after = page->nextRecordId;
    }
    return rows;
}

QStringList regenerated(Workspace &ws, int pageSize, const QString &keySubstring = {})
{
    QStringList rows;
    std::optional<RegeneratedCursor> cursor;
    for (int guard = 0; guard < 100; ++guard) {
        const auto page = fetchRegeneratedKeys(ws, cursor, pageSize, keySubstring).result();
        if (!page.ok())
            return {QStringLiteral("ERROR ") + page.error->message};
        for (const RegeneratedKeyStep &s : page->steps)
            rows << QStringLiteral("%1/%2 %3 [%4]").arg(s.taskId, s.stepId).arg(s.attempts).arg(s.keys.join(QLatin1Char(',')));
        if (!page->next)
            break;
        cursor = page->next;
    }
    return rows;
}

} // namespace

class TestDuplicates : public QObject {
    Q_OBJECT
private slots:
    void queue_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, true); // and the <backend>/shop rows (ShopShape.h)
    }
    void queue();
    void windowScan_data() { queue_data(); }
    void windowScan();
    void fullScan_data() { queue_data(); }
    void fullScan();
    void payloadDiffUnit();
};

void TestDuplicates::queue()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QString err = seed(db);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    Workspace ws(db.config());

    // Groups: unresolved by default, newest first: by (last created_at, idem_key) descending.
    DuplicateFilter f;
    const auto first = fetchDuplicateGroups(ws, f, std::nullopt, 100).result();
    QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error->message));
    QCOMPARE(first->groups.size(), 4);
    QVERIFY(!first->next);
    QCOMPARE(first->newestAt, QStringLiteral("2026-01-01T00:10:00.000000Z"));
    QCOMPARE(first->oldestAt, QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QCOMPARE(first->scannedTo, first->oldestAt);
    QCOMPARE(first->progress(), 1.0);
    const DuplicateGroup &a = first->groups.at(3);
    QCOMPARE(a.idemKey, QStringLiteral("k:a"));
    QCOMPARE(a.size, 2);
    QCOMPARE(a.live, 2);
    QCOMPARE(a.tenants, QStringList{QStringLiteral("acme")});
    QCOMPARE(a.firstCreatedAt, QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QCOMPARE(a.lastCreatedAt, QStringLiteral("2026-01-01T00:03:20.000000Z"));
    QCOMPARE(a.recordText(), QStringLiteral("SUCCESS"));
    const DuplicateGroup &b = first->groups.at(2);
    QCOMPARE(b.idemKey, QStringLiteral("k:b"));
    QCOMPARE(b.size, 3);
    QCOMPARE(b.live, 2);
    QCOMPARE(b.tenants, (QStringList{QStringLiteral("globex"), QStringLiteral("initech")}));
    QCOMPARE(b.recordText(), QStringLiteral("PROCESSING"));
    QCOMPARE(first->groups.at(1).idemKey, QStringLiteral("k:d"));
    QCOMPARE(first->groups.at(1).recordText(), QStringLiteral("FAILED"));
    QCOMPARE(first->groups.at(0).idemKey, QStringLiteral("k:g"));
    QCOMPARE(first->groups.at(0).recordText(), QStringLiteral("NONE"));

    const QStringList unresolved{QStringLiteral("k:g"), QStringLiteral("k:d"), QStringLiteral("k:b"), QStringLiteral("k:a")};
    const QStringList all{QStringLiteral("k:g"), QStringLiteral("k:d"), QStringLiteral("k:c"), QStringLiteral("k:b"), QStringLiteral("k:a"),
                          QStringLiteral("k:h")};
    for (int pageSize : {1, 2, 3, 100}) {
        QCOMPARE(groupKeys(ws, f, pageSize), unresolved);
        DuplicateFilter withResolved;
        withResolved.includeResolved = true;
        QCOMPARE(groupKeys(ws, withResolved, pageSize), all);
    }
    // A budget of 1 ms stops each page after its first window: pages may be short or empty
    // without being the end, and together they hold the same groups in the same order.
    for (int pageSize : {1, 100})
        QCOMPARE(groupKeys(ws, f, pageSize, 1), unresolved);
    // A creation window counts only the tickets inside it.
    DuplicateFilter window;
    window.createdFrom = parseUtcMicros(QStringLiteral("2026-01-01T00:05:00Z"));
    QCOMPARE(groupKeys(ws, window, 100), (QStringList{QStringLiteral("k:g"), QStringLiteral("k:d"), QStringLiteral("k:b")}));
    window.createdTo = parseUtcMicros(QStringLiteral("2026-01-01T00:08:20Z"));
    QCOMPARE(groupKeys(ws, window, 100), QStringList{QStringLiteral("k:b")});
    DuplicateFilter tenant;
    tenant.tenant = QStringLiteral("initech");
    QCOMPARE(groupKeys(ws, tenant, 10), QStringList{QStringLiteral("k:b")});
    DuplicateFilter sub;
    sub.keySubstring = QStringLiteral(":g");
    QCOMPARE(groupKeys(ws, sub, 10), QStringList{QStringLiteral("k:g")});

    // Inconsistencies, by record id, whatever the page size.
    // (Ticket ids as the shape spells them: ShapeExpect.h.)
    auto tid = [&](qint64 n) { return ticketIdText(db, n); };
    const QStringList expected{
        QStringLiteral("ticket_with_unsettled_record k:b PROCESSING ") + tid(3),
        QStringLiteral("ticket_with_unsettled_record k:b PROCESSING ") + tid(4),
        QStringLiteral("ticket_with_unsettled_record k:b PROCESSING ") + tid(5),
        QStringLiteral("ticket_with_unsettled_record k:d FAILED ") + tid(8),
        QStringLiteral("ticket_with_unsettled_record k:d FAILED ") + tid(9),
        QStringLiteral("snapshot_payload_differs k:e SUCCESS ") + tid(10),
        QStringLiteral("snapshot_ticket_missing k:f SUCCESS ") + tid(999),
        QStringLiteral("snapshot_ticket_cancelled k:h SUCCESS ") + tid(15),
    };
    for (int pageSize : {1, 2, 100})
        QCOMPARE(inconsistencies(ws, pageSize), expected);
    // The key filter applies to the inconsistencies too.
    for (int pageSize : {1, 100})
        QCOMPARE(inconsistencies(ws, pageSize, QStringLiteral(":d")),
                 (QStringList{expected.at(3), expected.at(4)}));
    QCOMPARE(inconsistencies(ws, 100, QStringLiteral("k:h")), QStringList{expected.at(7)});
    QCOMPARE(inconsistencies(ws, 100, QStringLiteral("nope")), QStringList());

    // Regenerated keys: steps whose attempts used more than one key.
    const QStringList regen{QStringLiteral("task_1/step_1 3 [task_1_step_1:a1,task_1_step_1:a2]"), QStringLiteral("task_2/step_1 2 [x,y]")};
    for (int pageSize : {1, 100})
        QCOMPARE(regenerated(ws, pageSize), regen);
    // With a key filter: the steps one of whose keys contains it.
    QCOMPARE(regenerated(ws, 100, QStringLiteral(":a2")), QStringList{regen.first()});
    QCOMPARE(regenerated(ws, 100, QStringLiteral("y")), QStringList{regen.last()});
    QCOMPARE(regenerated(ws, 100, QStringLiteral("task_1_step_2")), QStringList());

    // Group detail: the snapshot names ticket 2; payload differences field by field.
    const auto da = loadDuplicateGroup(ws, QStringLiteral("k:a")).result();
    QVERIFY(da.ok());
    QCOMPARE(da->tickets.size(), 2);
    QCOMPARE(da->canonicalTicketId, std::optional<BusinessId>(ticketIdOf(db, 2)));
    QCOMPARE(da->canonicalReason, QStringLiteral("the SUCCESS record's snapshot names ticket #%1 (callers were given it)").arg(tid(2)));
    QCOMPARE(da->keyReuseFields, QStringList{QStringLiteral("prio")});
    QCOMPARE(da->inconsistency, QString());
    QCOMPARE(da->payloadDiff.size(), 3);
    QCOMPARE(da->payloadDiff.at(0).field, QStringLiteral("prio"));
    QCOMPARE(da->payloadDiff.at(0).values, (QStringList{QStringLiteral("\"P1\""), QStringLiteral("\"P2\"")}));
    QVERIFY(da->payloadDiff.at(0).differs);
    QCOMPARE(da->payloadDiff.at(1).field, QStringLiteral("ticket_id"));
    QVERIFY(da->payloadDiff.at(1).differs);
    QCOMPARE(da->payloadDiff.at(2).field, QStringLiteral("title"));
    QVERIFY(!da->payloadDiff.at(2).differs);
    // No snapshot: the earliest ticket.
    const auto db2 = loadDuplicateGroup(ws, QStringLiteral("k:b")).result();
    QVERIFY(db2.ok());
    QCOMPARE(db2->canonicalTicketId, std::optional<BusinessId>(ticketIdOf(db, 3)));
    QCOMPARE(db2->canonicalReason, QStringLiteral("no SUCCESS snapshot names one of these tickets: the earliest live ticket "
                                                  "(#%1, created 2026-01-01T00:05:00.000000Z)").arg(tid(3)));
    QCOMPARE(db2->keyReuseFields, QStringList());
    // The snapshot names a CANCELLED ticket: still canonical, flagged.
    const auto dh = loadDuplicateGroup(ws, QStringLiteral("k:h")).result();
    QVERIFY(dh.ok());
    QCOMPARE(dh->canonicalTicketId, std::optional<BusinessId>(ticketIdOf(db, 15)));
    QCOMPARE(dh->inconsistency, QStringLiteral("the SUCCESS snapshot names ticket #%1, which is CANCELLED: callers hold a ticket "
                                               "that was undone. SUCCESS is final: escalate to the ticket system's owners; never "
                                               "re-mark the record").arg(tid(15)));
    // The key's warnings say the same (show and the console's key detail).
    const KeyDetail kh = loadKeyDetail(ws, QStringLiteral("k:h")).result();
    QVERIFY2(kh.warnings.contains(dh->inconsistency), qPrintable(kh.warnings.join(QLatin1Char('\n'))));
    const KeyDetail ka = loadKeyDetail(ws, QStringLiteral("k:a")).result();
    QVERIFY2(ka.warnings.contains(QStringLiteral("key reuse: the tickets' business payloads differ (prio), so they are different "
                                                 "operations under one key, not retries: no compensation without an override; "
                                                 "escalate")),
             qPrintable(ka.warnings.join(QLatin1Char('\n'))));
}

void TestDuplicates::windowScan()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    // Groups far apart and groups whose tickets lie in different creation-time windows: a
    // year without tickets, a group spread over two days, 200 single tickets in between.
    const qint64 day = 86400;
    QStringList errors{
        schema(db),
        ticket(db, 1, QStringLiteral("w:old"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 10),
        ticket(db, 2, QStringLiteral("w:old"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 70),
        ticket(db, 3, QStringLiteral("w:spread"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 365 * day),
        ticket(db, 4, QStringLiteral("w:spread"), QStringLiteral("globex"), QStringLiteral("OPEN"), QStringLiteral("{}"), 367 * day),
        ticket(db, 5, QStringLiteral("w:new"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 368 * day),
        ticket(db, 6, QStringLiteral("w:new"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 368 * day + 30),
        ticket(db, 7, QStringLiteral("w:new"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 368 * day + 90),
    };
    for (int i = 0; i < 200; ++i)
        errors << ticket(db, 100 + i, QStringLiteral("w:single:%1").arg(i), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"),
                         365 * day + i * 900);
    errors.removeAll(QString());
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    Workspace ws(db.config());

    const QStringList expected{QStringLiteral("w:new"), QStringLiteral("w:spread"), QStringLiteral("w:old")};
    for (int pageSize : {1, 2, 50})
        for (int budget : {0, 1})
            QCOMPARE(groupKeys(ws, DuplicateFilter{}, pageSize, budget), expected);

    const auto page = fetchDuplicateGroups(ws, DuplicateFilter{}, std::nullopt, 50).result();
    QVERIFY2(page.ok(), page.ok() ? "" : qPrintable(page.error->message));
    QCOMPARE(page->groups.size(), 3);
    QCOMPARE(page->groups.at(0).size, 3);
    QCOMPARE(page->groups.at(1).size, 2);
    QCOMPARE(page->groups.at(1).tenants, (QStringList{QStringLiteral("acme"), QStringLiteral("globex")}));
    QCOMPARE(page->groups.at(1).firstCreatedAt, QStringLiteral("2027-01-01T00:00:00.000000Z"));
    QCOMPARE(page->groups.at(1).lastCreatedAt, QStringLiteral("2027-01-03T00:00:00.000000Z"));
    QCOMPARE(page->groups.at(2).lastCreatedAt, QStringLiteral("2026-01-01T00:01:10.000000Z"));
    QCOMPARE(page->scannedTo, QStringLiteral("2026-01-01T00:00:10.000000Z"));
    QVERIFY(!page->next);
    // The year without tickets is skipped, not walked window by window.
    QVERIFY2(page->windows <= 12, qPrintable(QString::number(page->windows)));

    // The first group alone: the cursor resumes inside the window, progress is partial.
    const auto one = fetchDuplicateGroups(ws, DuplicateFilter{}, std::nullopt, 1).result();
    QVERIFY(one.ok());
    QCOMPARE(one->groups.size(), 1);
    QVERIFY(one->next);
    QCOMPARE(one->next->lastCreatedAt, QStringLiteral("2027-01-04T00:01:30.000000Z"));
    QCOMPARE(one->next->idemKey, QStringLiteral("w:new"));
    QCOMPARE(one->scannedTo, QStringLiteral("2027-01-04T00:01:30.000000Z"));
    QCOMPARE(one->progress(), 0.0);

    // A malformed cursor is a clear error, not a silent restart.
    const auto bad = fetchDuplicateGroups(ws, DuplicateFilter{}, DuplicateCursor{QStringLiteral("yesterday"), QString(), 0}, 10).result();
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error->message, QStringLiteral("ticket: duplicate-groups cursor time \"yesterday\" is not ISO-8601"));
}

void TestDuplicates::fullScan()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QString err = seed(db);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    Workspace ws(db.config());

    // Every filter: the one statement gives exactly the window scan's groups, field by field.
    const QStringList unresolved{
        QStringLiteral("k:g 2 2 [acme] 2026-01-01T00:08:20.000000Z 2026-01-01T00:08:30.000000Z NONE"),
        QStringLiteral("k:d 2 2 [acme] 2026-01-01T00:08:20.000000Z 2026-01-01T00:08:30.000000Z FAILED"),
        QStringLiteral("k:b 3 2 [globex,initech] 2026-01-01T00:05:00.000000Z 2026-01-01T00:05:20.000000Z PROCESSING"),
        QStringLiteral("k:a 2 2 [acme] 2026-01-01T00:01:40.000000Z 2026-01-01T00:03:20.000000Z SUCCESS"),
    };
    QCOMPARE(fullScanRows(ws, DuplicateFilter{}), unresolved);
    DuplicateFilter withResolved;
    withResolved.includeResolved = true;
    DuplicateFilter window;
    window.createdFrom = parseUtcMicros(QStringLiteral("2026-01-01T00:05:00Z"));
    window.createdTo = parseUtcMicros(QStringLiteral("2026-01-01T00:08:25Z"));
    DuplicateFilter tenant;
    tenant.tenant = QStringLiteral("initech");
    DuplicateFilter sub;
    sub.keySubstring = QStringLiteral(":g");
    for (const DuplicateFilter &f : {DuplicateFilter{}, withResolved, window, tenant, sub})
        QCOMPARE(fullScanRows(ws, f), windowScanRows(ws, f, 1));
    QCOMPARE(fullScanRows(ws, withResolved).size(), 6);
    QCOMPARE(fullScanRows(ws, window), QStringList{QStringLiteral("k:b 3 2 [globex,initech] 2026-01-01T00:05:00.000000Z "
                                                                 "2026-01-01T00:05:20.000000Z PROCESSING")});

    // After a page of the window scan: the rest, neither skipped nor repeated — after a
    // keyset cursor (k:g and k:d tie on their last creation time) and after a budget cursor.
    const auto one = fetchDuplicateGroups(ws, DuplicateFilter{}, std::nullopt, 1).result();
    QVERIFY(one.ok() && one->next);
    QCOMPARE(one->next->idemKey, QStringLiteral("k:g"));
    QCOMPARE(fullScanRows(ws, DuplicateFilter{}, one->next), unresolved.mid(1));
    QCOMPARE(fullScanRows(ws, DuplicateFilter{}, DuplicateCursor{QStringLiteral("2026-01-01T00:08:30Z"), QString(), 0}),
             unresolved.mid(2));
    const auto all = fetchAllDuplicateGroups(ws, DuplicateFilter{}).result();
    QVERIFY(all.ok());
    QVERIFY(!all->next);
    QCOMPARE(all->windows, 0);
    QCOMPARE(all->newestAt, QStringLiteral("2026-01-01T00:10:00.000000Z"));
    QCOMPARE(all->scannedTo, all->oldestAt);
    QCOMPARE(all->progress(), 1.0);

    // The independent whole-table GROUP BY (default schema) names the same keys.
    if (!db.isShop()) {
        QString error;
        QStringList keys = db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM ticket WHERE idem_key IS NOT NULL GROUP BY idem_key HAVING COUNT(*) > 1 "
                                                              "AND SUM(CASE WHEN status = 'CANCELLED' THEN 0 ELSE 1 END) > 1"),
                                               &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("k:a"), QStringLiteral("k:b"), QStringLiteral("k:d"), QStringLiteral("k:g")}));
    }

    // 1,100 more groups: tenants and record statuses are read 1,000 keys at a time.
    QVector<TicketSpec> tickets;
    QVector<RecordSpec> records;
    for (int i = 0; i < 1100; ++i) {
        for (int n = 0; n < 2; ++n) {
            TicketSpec t;
            t.id = 1000 + 2 * i + n;
            t.key = QStringLiteral("bulk:%1").arg(i, 4, 10, QLatin1Char('0'));
            t.tenant = n == 0 ? QStringLiteral("acme") : QStringLiteral("t%1").arg(i);
            t.title = QStringLiteral("T");
            t.status = QStringLiteral("OPEN");
            t.payload = QStringLiteral("{}");
            t.created = ts(db, 2000 + i);
            tickets << t;
        }
        RecordSpec r;
        r.key = QStringLiteral("bulk:%1").arg(i, 4, 10, QLatin1Char('0'));
        r.status = QString::number(i % 3);
        r.updated = ts(db, 1);
        r.expire = ts(db, 9000);
        records << r;
    }
    const QString inserted = insertTickets(db, tickets) + insertRecords(db, records);
    QVERIFY2(inserted.isEmpty(), qPrintable(inserted));
    DuplicateFilter bulk;
    bulk.keySubstring = QStringLiteral("bulk:");
    const QStringList rows = fullScanRows(ws, bulk);
    QCOMPARE(rows.size(), 1100);
    QCOMPARE(rows.first(), QStringLiteral("bulk:1099 2 2 [acme,t1099] 2026-01-01T00:51:39.000000Z 2026-01-01T00:51:39.000000Z SUCCESS"));
    QCOMPARE(rows.at(99), QStringLiteral("bulk:1000 2 2 [acme,t1000] 2026-01-01T00:50:00.000000Z 2026-01-01T00:50:00.000000Z SUCCESS"));
    QCOMPARE(rows.at(100), QStringLiteral("bulk:0999 2 2 [acme,t999] 2026-01-01T00:49:59.000000Z 2026-01-01T00:49:59.000000Z PROCESSING"));
    QCOMPARE(rows.last(), QStringLiteral("bulk:0000 2 2 [acme,t0] 2026-01-01T00:33:20.000000Z 2026-01-01T00:33:20.000000Z PROCESSING"));
    QCOMPARE(rows, windowScanRows(ws, bulk, 500));

    // A malformed cursor is a clear error; a cancelled token runs nothing.
    QCOMPARE(fullScanRows(ws, DuplicateFilter{}, DuplicateCursor{QStringLiteral("yesterday"), QString(), 0}),
             QStringList{QStringLiteral("ERROR ticket: duplicate-groups cursor time \"yesterday\" is not ISO-8601")});
    const CancelToken token = CancelToken::create();
    token.cancel();
    Outcome<DuplicatePage> cancelled = Outcome<DuplicatePage>::success({});
    {
        const CancelScope scope(token);
        cancelled = fetchAllDuplicateGroups(ws, DuplicateFilter{}).result();
    }
    QVERIFY(!cancelled.ok());
    QCOMPARE(cancelled.error->kind, DbError::Kind::Cancelled);
}

void TestDuplicates::payloadDiffUnit()
{
    TicketRow a, b;
    a.id = bid(1);
    a.payload = QStringLiteral("{\"x\":1,\"y\":[1,2]}");
    b.id = bid(2);
    b.payload = QStringLiteral("{\"x\":1,\"z\":null}");
    const auto d = payloadDifferences({a, b});
    QCOMPARE(d.size(), 3);
    QCOMPARE(d.at(0).field, QStringLiteral("x"));
    QVERIFY(!d.at(0).differs);
    QCOMPARE(d.at(1).values, (QStringList{QStringLiteral("[1,2]"), QStringLiteral("(absent)")}));
    QCOMPARE(d.at(2).values, (QStringList{QStringLiteral("(absent)"), QStringLiteral("null")}));
    // Non-object payloads are compared whole.
    b.payload = QStringLiteral("<html>");
    const auto w = payloadDifferences({a, b});
    QCOMPARE(w.size(), 1);
    QCOMPARE(w.first().field, QStringLiteral("(payload)"));
    QVERIFY(w.first().differs);
}

QTEST_GUILESS_MAIN(TestDuplicates)
#include "tst_duplicates.moc"
