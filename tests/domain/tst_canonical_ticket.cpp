// The canonical-ticket rule (DESIGN.md §6 "Canonical ticket"), pure: which ticket is
// canonical, when a SUCCESS snapshot is inconsistent, what counts as key reuse, which ticket a
// SUCCESS snapshot may come from, and which compensation targets the rules allow.
#include "BusinessIdTestUtil.h"
#include "CanonicalTicket.h"
#include "Compensation.h"
#include "Verdict.h"

#include <QTest>

using namespace triage;

namespace {

TicketRow t(qint64 id, const QString &status, const QString &createdAt, const QString &payload = QStringLiteral("{}"))
{
    TicketRow r;
    r.id = bid(id);
    r.status = status;
    r.createdAt = createdAt;
    r.payload = payload;
    r.idemKey = QStringLiteral("k");
    return r;
}

const QString kT1 = QStringLiteral("2026-01-01T00:00:01.000000Z");
const QString kT2 = QStringLiteral("2026-01-01T00:00:02.000000Z");
const QString kT3 = QStringLiteral("2026-01-01T00:00:03.000000Z");

KeyDetail detailOf(const QVector<TicketRow> &tickets, const QString &status = QStringLiteral("PROCESSING"),
                   const std::optional<QString> &snapshot = std::nullopt)
{
    KeyDetail d;
    d.idemKey = QStringLiteral("k");
    d.tickets = tickets;
    RecordDetail r;
    r.idemKey = d.idemKey;
    r.statusText = status;
    r.resultSnapshot = snapshot;
    d.record = r;
    return d;
}

} // namespace

class TestCanonicalTicket : public QObject {
    Q_OBJECT
private slots:
    void snapshotNamesTicket();
    void earliestLive();
    void earliestCancelledTakesNextLive();
    void snapshotNamesCancelledTicket();
    void snapshotNamesMissingTicket();
    void noLiveTicket();
    void onlySuccessSnapshotsName();
    void namedTicketId();
    void keyReuse();
    void snapshotTicketChoice();
    void snapshotRefusal();
    void compensationTargets();
    void duplicateVerdictNamesCanonical();
};

void TestCanonicalTicket::snapshotNamesTicket()
{
    // The snapshot names the later ticket: callers hold it, so it is canonical.
    const CanonicalTicket c = canonicalTicket({t(151, QStringLiteral("OPEN"), kT1), t(152, QStringLiteral("OPEN"), kT2)},
                                              QStringLiteral("SUCCESS"), QStringLiteral("{\"ticket_id\":152}"));
    QCOMPARE(c.id, optBid(152));
    QCOMPARE(c.basis, CanonicalTicket::Basis::SnapshotNames);
    QCOMPARE(c.reason, QStringLiteral("the SUCCESS record's snapshot names ticket #152 (callers were given it)"));
    QCOMPARE(c.snapshotTicketId, optBid(152));
    QCOMPARE(c.inconsistency, QString());
}

void TestCanonicalTicket::earliestLive()
{
    // No snapshot: the earliest by created_at (order of the input does not matter), ties by id.
    CanonicalTicket c = canonicalTicket({t(152, QStringLiteral("OPEN"), kT2), t(151, QStringLiteral("OPEN"), kT1)},
                                        QStringLiteral("PROCESSING"), std::nullopt);
    QCOMPARE(c.id, optBid(151));
    QCOMPARE(c.basis, CanonicalTicket::Basis::EarliestLive);
    QCOMPARE(c.reason, QStringLiteral("no SUCCESS snapshot names one of these tickets: the earliest live ticket (#151, created "
                                      "2026-01-01T00:00:01.000000Z)"));
    c = canonicalTicket({t(9, QStringLiteral("OPEN"), kT1), t(8, QStringLiteral("OPEN"), kT1)}, QString(), std::nullopt);
    QCOMPARE(c.id, optBid(8));
}

void TestCanonicalTicket::earliestCancelledTakesNextLive()
{
    const CanonicalTicket c = canonicalTicket({t(151, QStringLiteral("CANCELLED"), kT1), t(152, QStringLiteral("OPEN"), kT2),
                                               t(153, QStringLiteral("CLOSED"), kT3)},
                                              QStringLiteral("PROCESSING"), std::nullopt);
    QCOMPARE(c.id, optBid(152));
    QCOMPARE(c.basis, CanonicalTicket::Basis::EarliestLive);
    QCOMPARE(c.inconsistency, QString());
}

void TestCanonicalTicket::snapshotNamesCancelledTicket()
{
    // Callers hold #151, now CANCELLED: still canonical (never compensate the extra in its
    // place), flagged with the remedy.
    const CanonicalTicket c = canonicalTicket({t(151, QStringLiteral("CANCELLED"), kT1), t(152, QStringLiteral("OPEN"), kT2)},
                                              QStringLiteral("SUCCESS"), QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk\"}"));
    QCOMPARE(c.id, optBid(151));
    QCOMPARE(c.basis, CanonicalTicket::Basis::SnapshotNames);
    QVERIFY(c.snapshotTicketCancelled);
    QVERIFY(!c.snapshotTicketMissing);
    QCOMPARE(c.inconsistency, QStringLiteral("the SUCCESS snapshot names ticket #151, which is CANCELLED: callers hold a ticket "
                                             "that was undone. SUCCESS is final: escalate to the ticket system's owners; never "
                                             "re-mark the record"));
}

void TestCanonicalTicket::snapshotNamesMissingTicket()
{
    const CanonicalTicket c = canonicalTicket({t(151, QStringLiteral("OPEN"), kT1), t(152, QStringLiteral("OPEN"), kT2)},
                                              QStringLiteral("SUCCESS"), QStringLiteral("{\"ticket_id\":999}"));
    QCOMPARE(c.id, optBid(151));
    QCOMPARE(c.basis, CanonicalTicket::Basis::EarliestLive);
    QVERIFY(c.snapshotTicketMissing);
    QCOMPARE(c.reason, QStringLiteral("the snapshot's ticket #999 is not among them: the earliest live ticket (#151, created "
                                      "2026-01-01T00:00:01.000000Z)"));
    QCOMPARE(c.inconsistency, QStringLiteral("the SUCCESS snapshot names ticket #999, which does not carry this key (or no longer "
                                             "exists): callers hold a ticket that is not here. SUCCESS is final: escalate to the "
                                             "ticket system's owners; never re-mark the record"));
}

void TestCanonicalTicket::noLiveTicket()
{
    CanonicalTicket c = canonicalTicket({t(151, QStringLiteral("CANCELLED"), kT1), t(152, QStringLiteral("CANCELLED"), kT2)},
                                        QStringLiteral("PROCESSING"), std::nullopt);
    QCOMPARE(c.id, std::nullopt);
    QCOMPARE(c.basis, CanonicalTicket::Basis::None);
    QCOMPARE(c.reason, QStringLiteral("every ticket of the key is CANCELLED and no SUCCESS snapshot names one: there is no "
                                      "canonical ticket"));
    c = canonicalTicket({}, QString(), std::nullopt);
    QCOMPARE(c.id, std::nullopt);
    QCOMPARE(c.reason, QStringLiteral("no ticket carries the key"));
}

void TestCanonicalTicket::onlySuccessSnapshotsName()
{
    // A FAILED record's leftover snapshot names nothing: the earliest live ticket.
    const CanonicalTicket c = canonicalTicket({t(151, QStringLiteral("OPEN"), kT1), t(152, QStringLiteral("OPEN"), kT2)},
                                              QStringLiteral("FAILED"), QStringLiteral("{\"ticket_id\":152}"));
    QCOMPARE(c.id, optBid(151));
    QCOMPARE(c.snapshotTicketId, std::nullopt);
}

void TestCanonicalTicket::namedTicketId()
{
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":17}")), optBid(17));
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":\"17\"}")), optBid(17));
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":1.5}")), std::nullopt);
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"id\":17}")), std::nullopt);
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("[17]")), std::nullopt);
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":")), std::nullopt);
    QCOMPARE(snapshotNamedTicketId(std::nullopt), std::nullopt);
}

void TestCanonicalTicket::keyReuse()
{
    // Retries: only the ticket's own fields differ.
    QCOMPARE(keyReuseFields({t(151, QStringLiteral("OPEN"), kT1, QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk\",\"id\":1}")),
                             t(152, QStringLiteral("OPEN"), kT2, QStringLiteral("{\"ticket_id\":152,\"title\":\"Disk\",\"id\":2}"))}),
             QStringList());
    // The demo's 151 "Disk almost full" and 152 "VPN outage": key reuse.
    QCOMPARE(keyReuseFields({t(151, QStringLiteral("OPEN"), kT1,
                               QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk almost full\",\"priority\":\"P1\"}")),
                             t(152, QStringLiteral("OPEN"), kT2,
                               QStringLiteral("{\"ticket_id\":152,\"title\":\"VPN outage\",\"priority\":\"P1\"}"))}),
             QStringList{QStringLiteral("title")});
    // A field one payload lacks differs too; the result is sorted.
    QCOMPARE(keyReuseFields({t(1, QStringLiteral("OPEN"), kT1, QStringLiteral("{\"b\":1,\"a\":2}")),
                             t(2, QStringLiteral("OPEN"), kT2, QStringLiteral("{\"b\":2}"))}),
             (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    // Payloads that are not JSON objects are compared whole.
    QCOMPARE(keyReuseFields({t(1, QStringLiteral("OPEN"), kT1, QStringLiteral("<html>")), t(2, QStringLiteral("OPEN"), kT2, QStringLiteral("<html>"))}),
             QStringList());
    QCOMPARE(keyReuseFields({t(1, QStringLiteral("OPEN"), kT1, QStringLiteral("<html>")), t(2, QStringLiteral("OPEN"), kT2, QStringLiteral("{}"))}),
             QStringList{QStringLiteral("(payload)")});
    QCOMPARE(keyReuseFields({t(1, QStringLiteral("OPEN"), kT1, QStringLiteral("{\"a\":1}"))}), QStringList());
}

void TestCanonicalTicket::snapshotTicketChoice()
{
    const QVector<TicketRow> group{t(151, QStringLiteral("OPEN"), kT1, QStringLiteral("{\"ticket_id\":151}")),
                                   t(152, QStringLiteral("OPEN"), kT2, QStringLiteral("{\"ticket_id\":152}"))};
    // The canonical ticket may be named.
    SnapshotTicketChoice c = snapshotTicketFor(detailOf(group), bid(151));
    QVERIFY(c.ticket);
    QCOMPARE(c.ticket->id, bid(151));
    QCOMPARE(c.refusal, QString());
    // Another ticket of the group may not.
    c = snapshotTicketFor(detailOf(group), bid(152));
    QVERIFY(!c.ticket);
    QCOMPARE(c.refusal, QStringLiteral("ticket #152 is not the canonical ticket of this key (#151: no SUCCESS snapshot names one "
                                       "of these tickets: the earliest live ticket (#151, created 2026-01-01T00:00:01.000000Z)): a "
                                       "SUCCESS snapshot comes only from the canonical ticket (DESIGN.md §6)"));
    c = snapshotTicketFor(detailOf(group), bid(999));
    QCOMPARE(c.refusal, QStringLiteral("ticket #999 does not carry key \"k\""));
    // Bulk: the canonical ticket when it is the only live one.
    c = snapshotTicketFor(detailOf(group), std::nullopt);
    QCOMPARE(c.refusal, QStringLiteral("2 live tickets carry the key (a bulk SUCCESS takes the snapshot of the key's only live "
                                       "ticket); mark it alone with --snapshot-from-ticket 151 (the canonical ticket) or compensate "
                                       "the extras first"));
    const QVector<TicketRow> resolved{t(151, QStringLiteral("CANCELLED"), kT1, QStringLiteral("{\"ticket_id\":151}")),
                                      t(152, QStringLiteral("OPEN"), kT2, QStringLiteral("{\"ticket_id\":152}"))};
    c = snapshotTicketFor(detailOf(resolved), std::nullopt);
    QVERIFY(c.ticket);
    QCOMPARE(c.ticket->id, bid(152));
    TicketRow nullPayload = t(7, QStringLiteral("OPEN"), kT1);
    nullPayload.payload.reset();
    c = snapshotTicketFor(detailOf({nullPayload}), std::nullopt);
    QCOMPARE(c.refusal, QStringLiteral("the canonical ticket #7 has a NULL payload"));
}

void TestCanonicalTicket::snapshotRefusal()
{
    const QVector<TicketRow> group{t(151, QStringLiteral("OPEN"), kT1), t(152, QStringLiteral("OPEN"), kT2)};
    const QString canon = QStringLiteral("the canonical ticket of this key is #151 (no SUCCESS snapshot names one of these tickets: "
                                         "the earliest live ticket (#151, created 2026-01-01T00:00:01.000000Z)): a SUCCESS snapshot "
                                         "comes only from the canonical ticket (DESIGN.md §6)");
    QCOMPARE(snapshotCanonicalRefusal(group, QStringLiteral("{\"ticket_id\":151}"), QStringLiteral("ticket:151")), QString());
    QCOMPARE(snapshotCanonicalRefusal(group, QStringLiteral("{\"ticket_id\":152}"), QStringLiteral("ticket:152")),
             QStringLiteral("the snapshot is ticket #152's payload, but ") + canon);
    // A typed snapshot naming the extra is refused the same way.
    QCOMPARE(snapshotCanonicalRefusal(group, QStringLiteral("{\"ticket_id\":152}"), QStringLiteral("typed")),
             QStringLiteral("the snapshot names ticket #152, but ") + canon);
    QCOMPARE(snapshotCanonicalRefusal(group, QStringLiteral("{\"ticket_id\":3}"), QStringLiteral("ticket:3")),
             QStringLiteral("the snapshot is ticket #3's payload, but ticket #3 does not carry this key"));
    // Snapshots that name no ticket of the key, and keys without tickets, are not this rule's business.
    QCOMPARE(snapshotCanonicalRefusal(group, QStringLiteral("{\"ok\":true}"), QStringLiteral("upstream")), QString());
    QCOMPARE(snapshotCanonicalRefusal({}, QStringLiteral("{\"ticket_id\":152}"), QStringLiteral("ticket:152")), QString());
}

void TestCanonicalTicket::compensationTargets()
{
    const QVector<TicketRow> retries{t(151, QStringLiteral("OPEN"), kT1, QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk\"}")),
                                     t(152, QStringLiteral("OPEN"), kT2, QStringLiteral("{\"ticket_id\":152,\"title\":\"Disk\"}"))};
    const QString reason20 = QStringLiteral("confirmed with the tenant on the phone");
    // The extra: allowed.
    CompensationTargetDecision d = compensationTargetRule(retries, QStringLiteral("PROCESSING"), std::nullopt, QStringLiteral("152"), false, QStringLiteral("x"));
    QCOMPARE(d.refusal, QString());
    QCOMPARE(d.overridden, QString());
    // The canonical ticket (named by the SUCCESS snapshot): never, not even with an override.
    for (bool override : {false, true}) {
        d = compensationTargetRule(retries, QStringLiteral("SUCCESS"), QStringLiteral("{\"ticket_id\":152,\"title\":\"Disk\"}"),
                                   QStringLiteral("152"), override, reason20);
        QCOMPARE(d.refusal, QStringLiteral("ticket 152 is the canonical ticket of this key (the SUCCESS record's snapshot names "
                                           "ticket #152 (callers were given it)): it is never a compensation target (DESIGN.md §6); "
                                           "compensate the extras instead"));
    }
    // Key reuse: refused without an override, allowed with one and a reason of >= 20 characters.
    const QVector<TicketRow> reuse{t(151, QStringLiteral("OPEN"), kT1, QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk almost full\"}")),
                                   t(152, QStringLiteral("OPEN"), kT2, QStringLiteral("{\"ticket_id\":152,\"title\":\"VPN outage\"}"))};
    const QString reuseText = QStringLiteral("key reuse: the tickets' business payloads differ (title), so they are different "
                                             "operations under one key, not retries");
    d = compensationTargetRule(reuse, QStringLiteral("PROCESSING"), std::nullopt, QStringLiteral("152"), false, reason20);
    QCOMPARE(d.refusal, reuseText + QStringLiteral("; compensate only with --override and a reason of at least 20 characters if you are sure"));
    d = compensationTargetRule(reuse, QStringLiteral("PROCESSING"), std::nullopt, QStringLiteral("152"), true, QStringLiteral("short"));
    QCOMPARE(d.refusal, QStringLiteral("--override needs a reason of at least 20 characters"));
    d = compensationTargetRule(reuse, QStringLiteral("PROCESSING"), std::nullopt, QStringLiteral("152"), true, reason20);
    QCOMPARE(d.refusal, QString());
    QCOMPARE(d.overridden, reuseText);
    // Already CANCELLED, not carrying the key, the last live ticket.
    const QVector<TicketRow> one{t(151, QStringLiteral("CANCELLED"), kT1), t(152, QStringLiteral("OPEN"), kT2), t(153, QStringLiteral("OPEN"), kT3)};
    QCOMPARE(compensationTargetRule(one, QString(), std::nullopt, QStringLiteral("151"), false, reason20).refusal,
             QStringLiteral("ticket 151 is already CANCELLED"));
    QCOMPARE(compensationTargetRule(one, QString(), std::nullopt, QStringLiteral("9"), false, reason20).refusal,
             QStringLiteral("ticket 9 does not carry the key"));
    QCOMPARE(compensationTargetRule(one, QString(), std::nullopt, QStringLiteral("152"), false, reason20).refusal,
             QStringLiteral("ticket 152 is the canonical ticket of this key (no SUCCESS snapshot names one of these tickets: the "
                            "earliest live ticket (#152, created 2026-01-01T00:00:02.000000Z)): it is never a compensation target "
                            "(DESIGN.md §6); compensate the extras instead"));
    QCOMPARE(compensationTargetRule(one, QString(), std::nullopt, QStringLiteral("153"), false, reason20).refusal, QString());
}

void TestCanonicalTicket::duplicateVerdictNamesCanonical()
{
    // Retries: the verdict names the canonical ticket the SUCCESS snapshot names.
    VerdictInput in;
    in.recordStale = true;
    in.recordStatus = QStringLiteral("SUCCESS");
    in.recordSnapshot = QStringLiteral("{\"ticket_id\":152,\"title\":\"Disk\"}");
    in.tickets = {VerdictTicket{bid(151), QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk\"}"), QStringLiteral("OPEN"), kT1},
                  VerdictTicket{bid(152), QStringLiteral("{\"ticket_id\":152,\"title\":\"Disk\"}"), QStringLiteral("OPEN"), kT2}};
    Verdict v = suggestVerdict(in);
    QCOMPARE(verdictName(v.kind), QStringLiteral("DUPLICATE"));
    QCOMPARE(v.canonicalTicketId, optBid(152));
    QCOMPARE(v.why, QStringLiteral("more than one side effect: compensate the extras, keep the canonical ticket #152"));
    QVERIFY(v.facts.contains(QStringLiteral("canonical ticket: #152 (the SUCCESS record's snapshot names ticket #152 (callers were given it))")));
    QVERIFY(v.reason.startsWith(QStringLiteral("DESIGN.md §6 row 2 → DUPLICATE: more than one side effect: compensate the extras, keep "
                                               "the canonical ticket #152. Facts: ")));
    QCOMPARE(v.keyReuseFields, QStringList());
    QVERIFY(v.toJson().contains("\"canonical_ticket_id\":152"));
    // The demo's 151 "Disk almost full" and 152 "VPN outage": key reuse, said in the reason.
    in.recordStatus = QStringLiteral("PROCESSING");
    in.recordSnapshot.reset();
    in.tickets = {VerdictTicket{bid(151), QStringLiteral("{\"ticket_id\":151,\"title\":\"Disk almost full\"}"), QStringLiteral("OPEN"), kT1},
                  VerdictTicket{bid(152), QStringLiteral("{\"ticket_id\":152,\"title\":\"VPN outage\"}"), QStringLiteral("OPEN"), kT2}};
    v = suggestVerdict(in);
    QCOMPARE(verdictName(v.kind), QStringLiteral("DUPLICATE"));
    QCOMPARE(v.canonicalTicketId, optBid(151));
    QCOMPARE(v.keyReuseFields, QStringList{QStringLiteral("title")});
    QCOMPARE(v.why, QStringLiteral("key reuse, not a retry: the tickets' business payloads differ (title), so they are different "
                                   "operations under one key — do not compensate without an override; escalate"));
    QVERIFY(v.facts.contains(QStringLiteral("key reuse: the business fields title differ between the tickets")));
    QVERIFY(v.facts.contains(QStringLiteral("canonical ticket: #151 (no SUCCESS snapshot names one of these tickets: the earliest live "
                                            "ticket (#151, created 2026-01-01T00:00:01.000000Z))")));
    QVERIFY(v.toJson().contains("\"key_reuse_fields\":[\"title\"]"));
}

QTEST_GUILESS_MAIN(TestCanonicalTicket)
#include "tst_canonical_ticket.moc"
