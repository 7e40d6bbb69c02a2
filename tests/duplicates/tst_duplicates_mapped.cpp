// The Duplicate keys queue on tables of another shape (DESIGN.md §10), created by the test
// itself on every backend (tests/support/MappedShape.h): groups over the mapped ticket table
// with its cancelled spelling ("voided"), record statuses through the record mapping
// (odd case and spaces; an unknown value stays UNKNOWN_CODE_<value>), inconsistencies,
// regenerated keys on the mapped intent log, and the group detail. Every expected value is
// written out.
#include "BackendTestUtil.h"
#include "MappedShape.h"

#include "Duplicates.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// Placed `sec` seconds after kMappedMs.
qint64 at(qint64 sec)
{
    return kMappedMs + sec * 1000;
}

QString seed(const TestDatabase &db, Workspace &ws)
{
    const auto schema = initSchema(ws, SchemaOptions{}).result();
    if (!schema.ok())
        return schema.error->message;
    const QString p1 = QStringLiteral("{\"ticket_id\":1,\"title\":\"VPN\",\"prio\":\"P1\"}");
    const QString p2 = QStringLiteral("{\"ticket_id\":2,\"title\":\"VPN\",\"prio\":\"P2\"}");
    const QString acme = QStringLiteral("acme"), live = QStringLiteral("live"), voided = QStringLiteral("voided"), empty = QStringLiteral("{}");
    QStringList errors{
        createMappedTables(db),
        insertMappedTicket(db, 1, QStringLiteral("k:a"), acme, live, p1, at(100)),
        insertMappedTicket(db, 2, QStringLiteral("k:a"), acme, live, p2, at(200)),
        insertMappedTicket(db, 3, QStringLiteral("k:b"), QStringLiteral("globex"), live, empty, at(300)),
        insertMappedTicket(db, 4, QStringLiteral("k:b"), QStringLiteral("initech"), live, empty, at(310)),
        insertMappedTicket(db, 5, QStringLiteral("k:b"), QStringLiteral("globex"), voided, empty, at(320)),
        // k:c: one live ticket left (resolved); "CANCELLED" is not this table's spelling: live.
        insertMappedTicket(db, 6, QStringLiteral("k:c"), acme, live, empty, at(400)),
        insertMappedTicket(db, 7, QStringLiteral("k:c"), acme, voided, empty, at(410)),
        insertMappedTicket(db, 17, QStringLiteral("k:x"), acme, QStringLiteral("CANCELLED"), empty, at(420)),
        insertMappedTicket(db, 18, QStringLiteral("k:x"), acme, live, empty, at(430)),
        insertMappedTicket(db, 8, QStringLiteral("k:u"), acme, live, empty, at(500)),
        insertMappedTicket(db, 9, QStringLiteral("k:u"), acme, live, empty, at(510)),
        insertMappedTicket(db, 10, QStringLiteral("k:e"), acme, live, QStringLiteral("{\"ticket_id\":10,\"x\":2}"), at(600)),
        insertMappedTicket(db, 11, std::nullopt, acme, live, empty, at(700)),
        insertMappedTicket(db, 14, std::nullopt, acme, live, empty, at(710)),
        insertMappedTicket(db, 15, QStringLiteral("k:h"), acme, voided, QStringLiteral("{\"ticket_id\":15}"), at(150)),
        insertMappedTicket(db, 16, QStringLiteral("k:h"), acme, live, QStringLiteral("{\"ticket_id\":16}"), at(160)),
        insertMappedTicket(db, 20, QStringLiteral("k:p"), acme, live, empty, at(800)),
        insertMappedRecord(db, QStringLiteral("k:a"), QStringLiteral("Done"), at(1), QStringLiteral("{\"prio\":\"P2\",\"ticket_id\":2,\"title\":\"VPN\"}")),
        insertMappedRecord(db, QStringLiteral("k:b"), QStringLiteral("pending ")),
        insertMappedRecord(db, QStringLiteral("k:u"), QStringLiteral("weird")),
        insertMappedRecord(db, QStringLiteral("k:h"), QStringLiteral(" OK"), at(1), QStringLiteral("{\"ticket_id\":15}")),
        insertMappedRecord(db, QStringLiteral("k:e"), QStringLiteral("DONE"), at(1), QStringLiteral("{\"ticket_id\":10,\"x\":1}")),
        insertMappedRecord(db, QStringLiteral("k:f"), QStringLiteral("done"), at(1), QStringLiteral("{\"ticket_id\":999}")),
        insertMappedRecord(db, QStringLiteral("k:p"), QStringLiteral("Failed")),
        insertMappedRecord(db, QStringLiteral("k:x"), QStringLiteral("ERROR")),
        insertMappedAttempt(db, QStringLiteral("task_1"), QStringLiteral("step_1"), QStringLiteral("task_1_step_1:a1"), QStringLiteral("timeout"), at(10)),
        insertMappedAttempt(db, QStringLiteral("task_1"), QStringLiteral("step_1"), QStringLiteral("task_1_step_1:a2"), QStringLiteral("timeout"), at(20)),
        insertMappedAttempt(db, QStringLiteral("task_1"), QStringLiteral("step_1"), QStringLiteral("task_1_step_1:a2"), QStringLiteral("ok"), at(30)),
        insertMappedAttempt(db, QStringLiteral("task_1"), QStringLiteral("step_2"), QStringLiteral("task_1_step_2"), QStringLiteral("timeout"), at(40)),
        insertMappedAttempt(db, QStringLiteral("task_1"), QStringLiteral("step_2"), QStringLiteral("task_1_step_2"), QStringLiteral("ok"), at(50)),
        insertMappedAttempt(db, QStringLiteral("task_2"), QStringLiteral("step_1"), QStringLiteral("x"), QStringLiteral("timeout"), at(60)),
        insertMappedAttempt(db, QStringLiteral("task_2"), QStringLiteral("step_1"), QStringLiteral("y"), QStringLiteral("timeout"), at(70)),
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
        if (!page.ok())
            return {QStringLiteral("ERROR ") + page.error->message};
        for (const DuplicateGroup &g : page->groups)
            keys << g.idemKey;
        if (!page->next)
            break;
        cursor = page->next;
    }
    return keys;
}

/// "<key> size=<n> live=<n> tenants=<a,b> <first>..<last> record=<text>".
QString groupText(const DuplicateGroup &g)
{
    return QStringLiteral("%1 size=%2 live=%3 tenants=%4 %5..%6 record=%7")
        .arg(g.idemKey)
        .arg(g.size)
        .arg(g.live)
        .arg(g.tenants.join(QLatin1Char(',')), g.firstCreatedAt, g.lastCreatedAt, g.recordText());
}

QStringList inconsistencies(Workspace &ws, int pageSize)
{
    QStringList rows;
    std::optional<qint64> after = 0;
    for (int guard = 0; after && guard < 100; ++guard) {
        const auto page = fetchInconsistencies(ws, *after, pageSize).result();
        if (!page.ok())
            return {QStringLiteral("ERROR ") + page.error->message};
        for (const DuplicateInconsistency &i : page->rows)
            rows << QStringLiteral("%1 %2 %3 %4").arg(inconsistencyKindName(i.kind), i.idemKey, recordStatusName(i.recordStatus)).arg(i.ticketId.text());
        after = page->nextRecordId;
    }
    return rows;
}

QStringList regenerated(Workspace &ws, int pageSize)
{
    QStringList rows;
    std::optional<RegeneratedCursor> cursor;
    for (int guard = 0; guard < 100; ++guard) {
        const auto page = fetchRegeneratedKeys(ws, cursor, pageSize).result();
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

class TestDuplicatesMapped : public QObject {
    Q_OBJECT
private slots:
    void queue_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(true);
    }
    void queue();
};

void TestDuplicatesMapped::queue()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(mappedConfig(db.config()));
    TRIAGE_OK(seed(db, ws));

    // Groups: live means "not voided"; newest first by (last placed_ms, key) descending.
    const auto first = fetchDuplicateGroups(ws, DuplicateFilter{}, std::nullopt, 100).result();
    TRIAGE_VERIFY_OUTCOME(first);
    QVERIFY(!first->next);
    QCOMPARE(first->newestAt, QStringLiteral("2026-01-01T00:13:20.123000Z"));
    QCOMPARE(first->oldestAt, QStringLiteral("2026-01-01T00:01:40.123000Z"));
    QStringList groups;
    for (const DuplicateGroup &g : first->groups)
        groups << groupText(g);
    QCOMPARE(groups, (QStringList{
                         QStringLiteral("k:u size=2 live=2 tenants=acme 2026-01-01T00:08:20.123000Z..2026-01-01T00:08:30.123000Z "
                                        "record=UNKNOWN_CODE_weird"),
                         QStringLiteral("k:x size=2 live=2 tenants=acme 2026-01-01T00:07:00.123000Z..2026-01-01T00:07:10.123000Z "
                                        "record=FAILED"),
                         QStringLiteral("k:b size=3 live=2 tenants=globex,initech 2026-01-01T00:05:00.123000Z..2026-01-01T00:05:20.123000Z "
                                        "record=PROCESSING"),
                         QStringLiteral("k:a size=2 live=2 tenants=acme 2026-01-01T00:01:40.123000Z..2026-01-01T00:03:20.123000Z "
                                        "record=SUCCESS"),
                     }));
    const DuplicateGroup &u = first->groups.at(0);
    QVERIFY(u.record);
    QCOMPARE(u.record->code, std::optional<qint64>());
    QCOMPARE(u.record->stored, std::optional<QString>(QStringLiteral("weird")));
    QCOMPARE(first->groups.at(2).record->stored, std::optional<QString>(QStringLiteral("pending ")));

    const QStringList unresolved{QStringLiteral("k:u"), QStringLiteral("k:x"), QStringLiteral("k:b"), QStringLiteral("k:a")};
    const QStringList all{QStringLiteral("k:u"), QStringLiteral("k:x"), QStringLiteral("k:c"), QStringLiteral("k:b"), QStringLiteral("k:a"),
                          QStringLiteral("k:h")};
    DuplicateFilter withResolved;
    withResolved.includeResolved = true;
    for (int pageSize : {1, 2, 100}) {
        QCOMPARE(groupKeys(ws, DuplicateFilter{}, pageSize), unresolved);
        QCOMPARE(groupKeys(ws, withResolved, pageSize), all);
        QCOMPARE(groupKeys(ws, DuplicateFilter{}, pageSize, 1), unresolved);
    }
    // Creation windows on the epoch_ms column, bounds exact to the microsecond.
    DuplicateFilter window;
    window.createdFrom = parseUtcMicros(QStringLiteral("2026-01-01T00:05:00.123000Z"));
    window.createdTo = parseUtcMicros(QStringLiteral("2026-01-01T00:08:30.123000Z"));
    QCOMPARE(groupKeys(ws, window, 100), (QStringList{QStringLiteral("k:x"), QStringLiteral("k:b")}));
    window.createdFrom = parseUtcMicros(QStringLiteral("2026-01-01T00:05:00.123001Z")); // after ticket 3: k:b has 4 and 5 left
    QCOMPARE(groupKeys(ws, window, 100), QStringList{QStringLiteral("k:x")});
    window.includeResolved = true;
    QCOMPARE(groupKeys(ws, window, 100), (QStringList{QStringLiteral("k:x"), QStringLiteral("k:c"), QStringLiteral("k:b")}));
    DuplicateFilter tenant;
    tenant.tenant = QStringLiteral("initech");
    QCOMPARE(groupKeys(ws, tenant, 10), QStringList{QStringLiteral("k:b")});
    DuplicateFilter sub;
    sub.keySubstring = QStringLiteral(":u");
    QCOMPARE(groupKeys(ws, sub, 10), QStringList{QStringLiteral("k:u")});

    // Inconsistencies by record id: "weird" is no status, so not examined.
    const QStringList expected{
        QStringLiteral("ticket_with_unsettled_record k:b PROCESSING 3"),
        QStringLiteral("ticket_with_unsettled_record k:b PROCESSING 4"),
        QStringLiteral("ticket_with_unsettled_record k:b PROCESSING 5"),
        QStringLiteral("snapshot_ticket_cancelled k:h SUCCESS 15"),
        QStringLiteral("snapshot_payload_differs k:e SUCCESS 10"),
        QStringLiteral("snapshot_ticket_missing k:f SUCCESS 999"),
        QStringLiteral("ticket_with_unsettled_record k:p FAILED 20"),
        QStringLiteral("ticket_with_unsettled_record k:x FAILED 17"),
        QStringLiteral("ticket_with_unsettled_record k:x FAILED 18"),
    };
    for (int pageSize : {1, 2, 100})
        QCOMPARE(inconsistencies(ws, pageSize), expected);

    // Regenerated keys on the mapped intent log.
    const QStringList regen{QStringLiteral("task_1/step_1 3 [task_1_step_1:a1,task_1_step_1:a2]"), QStringLiteral("task_2/step_1 2 [x,y]")};
    for (int pageSize : {1, 100})
        QCOMPARE(regenerated(ws, pageSize), regen);

    // Group detail: voided reads CANCELLED, so the earliest live ticket is canonical.
    const auto b = loadDuplicateGroup(ws, QStringLiteral("k:b")).result();
    TRIAGE_VERIFY_OUTCOME(b);
    QCOMPARE(b->tickets.size(), 3);
    QCOMPARE(b->tickets.at(2).status, NullableText(QStringLiteral("CANCELLED")));
    QCOMPARE(b->tickets.at(0).status, NullableText(QStringLiteral("live")));
    QCOMPARE(b->tickets.at(0).createdAt, QStringLiteral("2026-01-01T00:05:00.123000Z"));
    QCOMPARE(b->record->statusText, QStringLiteral("PROCESSING"));
    QCOMPARE(b->canonicalTicketId, std::optional<BusinessId>(BusinessId::fromInteger(3)));
    QCOMPARE(b->canonicalReason, QStringLiteral("no SUCCESS snapshot names one of these tickets: the earliest live ticket "
                                                "(#3, created 2026-01-01T00:05:00.123000Z)"));
    const auto h = loadDuplicateGroup(ws, QStringLiteral("k:h")).result();
    TRIAGE_VERIFY_OUTCOME(h);
    QCOMPARE(h->record->statusText, QStringLiteral("SUCCESS"));
    QCOMPARE(h->canonicalTicketId, std::optional<BusinessId>(BusinessId::fromInteger(15)));
    QCOMPARE(h->inconsistency, QStringLiteral("the SUCCESS snapshot names ticket #15, which is CANCELLED: callers hold a ticket "
                                              "that was undone. SUCCESS is final: escalate to the ticket system's owners; never "
                                              "re-mark the record"));
}

QTEST_GUILESS_MAIN(TestDuplicatesMapped)
#include "tst_duplicates_mapped.moc"
