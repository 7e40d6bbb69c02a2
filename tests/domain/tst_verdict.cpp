// The verdict table of DESIGN.md §6, row by row: every combination of record age ×
// tickets × intent attempts × upstream answer (2 × 3 × 4 × 5 = 120), each expected verdict
// and row written out by hand below, plus snapshots, reasons and the KeyDetail adapter.
#include "BusinessIdTestUtil.h"
#include "KeyDetail.h"
#include "RecordStatus.h"
#include "Verdict.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

using namespace triage;

namespace {

// age: young = younger than the processing timeout (not stale), stale = older.
// tickets: ticket rows carrying the key. attempts: the intent-log attempt for the key
// (none, or one attempt in that status). upstream: the answer. Then the expected verdict
// and the §6 row that decides it (first matching row wins).
const char kTable[] = R"(
# age  tickets attempts  upstream        verdict    row
young  0  none       FOUND           WAIT       1
young  0  none       AMBIGUOUS       WAIT       1
young  0  none       NOT_FOUND       WAIT       1
young  0  none       UNUSABLE        WAIT       1
young  0  none       NOT_CONFIGURED  WAIT       1
young  0  SUCCEEDED  FOUND           WAIT       1
young  0  SUCCEEDED  AMBIGUOUS       WAIT       1
young  0  SUCCEEDED  NOT_FOUND       WAIT       1
young  0  SUCCEEDED  UNUSABLE        WAIT       1
young  0  SUCCEEDED  NOT_CONFIGURED  WAIT       1
young  0  UNKNOWN    FOUND           WAIT       1
young  0  UNKNOWN    AMBIGUOUS       WAIT       1
young  0  UNKNOWN    NOT_FOUND       WAIT       1
young  0  UNKNOWN    UNUSABLE        WAIT       1
young  0  UNKNOWN    NOT_CONFIGURED  WAIT       1
young  0  FAILED     FOUND           WAIT       1
young  0  FAILED     AMBIGUOUS       WAIT       1
young  0  FAILED     NOT_FOUND       WAIT       1
young  0  FAILED     UNUSABLE        WAIT       1
young  0  FAILED     NOT_CONFIGURED  WAIT       1
young  1  none       FOUND           WAIT       1
young  1  none       AMBIGUOUS       WAIT       1
young  1  none       NOT_FOUND       WAIT       1
young  1  none       UNUSABLE        WAIT       1
young  1  none       NOT_CONFIGURED  WAIT       1
young  1  SUCCEEDED  FOUND           WAIT       1
young  1  SUCCEEDED  AMBIGUOUS       WAIT       1
young  1  SUCCEEDED  NOT_FOUND       WAIT       1
young  1  SUCCEEDED  UNUSABLE        WAIT       1
young  1  SUCCEEDED  NOT_CONFIGURED  WAIT       1
young  1  UNKNOWN    FOUND           WAIT       1
young  1  UNKNOWN    AMBIGUOUS       WAIT       1
young  1  UNKNOWN    NOT_FOUND       WAIT       1
young  1  UNKNOWN    UNUSABLE        WAIT       1
young  1  UNKNOWN    NOT_CONFIGURED  WAIT       1
young  1  FAILED     FOUND           WAIT       1
young  1  FAILED     AMBIGUOUS       WAIT       1
young  1  FAILED     NOT_FOUND       WAIT       1
young  1  FAILED     UNUSABLE        WAIT       1
young  1  FAILED     NOT_CONFIGURED  WAIT       1
young  2  none       FOUND           WAIT       1
young  2  none       AMBIGUOUS       WAIT       1
young  2  none       NOT_FOUND       WAIT       1
young  2  none       UNUSABLE        WAIT       1
young  2  none       NOT_CONFIGURED  WAIT       1
young  2  SUCCEEDED  FOUND           WAIT       1
young  2  SUCCEEDED  AMBIGUOUS       WAIT       1
young  2  SUCCEEDED  NOT_FOUND       WAIT       1
young  2  SUCCEEDED  UNUSABLE        WAIT       1
young  2  SUCCEEDED  NOT_CONFIGURED  WAIT       1
young  2  UNKNOWN    FOUND           WAIT       1
young  2  UNKNOWN    AMBIGUOUS       WAIT       1
young  2  UNKNOWN    NOT_FOUND       WAIT       1
young  2  UNKNOWN    UNUSABLE        WAIT       1
young  2  UNKNOWN    NOT_CONFIGURED  WAIT       1
young  2  FAILED     FOUND           WAIT       1
young  2  FAILED     AMBIGUOUS       WAIT       1
young  2  FAILED     NOT_FOUND       WAIT       1
young  2  FAILED     UNUSABLE        WAIT       1
young  2  FAILED     NOT_CONFIGURED  WAIT       1
stale  0  none       FOUND           SUCCESS    5
stale  0  none       AMBIGUOUS       DUPLICATE  2
stale  0  none       NOT_FOUND       FAILED     7
stale  0  none       UNUSABLE        UNKNOWN    8
stale  0  none       NOT_CONFIGURED  UNKNOWN    8
stale  0  SUCCEEDED  FOUND           SUCCESS    5
stale  0  SUCCEEDED  AMBIGUOUS       DUPLICATE  2
stale  0  SUCCEEDED  NOT_FOUND       UNKNOWN    6
stale  0  SUCCEEDED  UNUSABLE        UNKNOWN    8
stale  0  SUCCEEDED  NOT_CONFIGURED  UNKNOWN    8
stale  0  UNKNOWN    FOUND           SUCCESS    5
stale  0  UNKNOWN    AMBIGUOUS       DUPLICATE  2
stale  0  UNKNOWN    NOT_FOUND       FAILED     7
stale  0  UNKNOWN    UNUSABLE        UNKNOWN    8
stale  0  UNKNOWN    NOT_CONFIGURED  UNKNOWN    8
stale  0  FAILED     FOUND           SUCCESS    5
stale  0  FAILED     AMBIGUOUS       DUPLICATE  2
stale  0  FAILED     NOT_FOUND       FAILED     7
stale  0  FAILED     UNUSABLE        UNKNOWN    8
stale  0  FAILED     NOT_CONFIGURED  UNKNOWN    8
stale  1  none       FOUND           SUCCESS    4
stale  1  none       AMBIGUOUS       DUPLICATE  2
stale  1  none       NOT_FOUND       UNKNOWN    3
stale  1  none       UNUSABLE        SUCCESS    4
stale  1  none       NOT_CONFIGURED  SUCCESS    4
stale  1  SUCCEEDED  FOUND           SUCCESS    4
stale  1  SUCCEEDED  AMBIGUOUS       DUPLICATE  2
stale  1  SUCCEEDED  NOT_FOUND       UNKNOWN    3
stale  1  SUCCEEDED  UNUSABLE        SUCCESS    4
stale  1  SUCCEEDED  NOT_CONFIGURED  SUCCESS    4
stale  1  UNKNOWN    FOUND           SUCCESS    4
stale  1  UNKNOWN    AMBIGUOUS       DUPLICATE  2
stale  1  UNKNOWN    NOT_FOUND       UNKNOWN    3
stale  1  UNKNOWN    UNUSABLE        SUCCESS    4
stale  1  UNKNOWN    NOT_CONFIGURED  SUCCESS    4
stale  1  FAILED     FOUND           SUCCESS    4
stale  1  FAILED     AMBIGUOUS       DUPLICATE  2
stale  1  FAILED     NOT_FOUND       UNKNOWN    3
stale  1  FAILED     UNUSABLE        SUCCESS    4
stale  1  FAILED     NOT_CONFIGURED  SUCCESS    4
stale  2  none       FOUND           DUPLICATE  2
stale  2  none       AMBIGUOUS       DUPLICATE  2
stale  2  none       NOT_FOUND       DUPLICATE  2
stale  2  none       UNUSABLE        DUPLICATE  2
stale  2  none       NOT_CONFIGURED  DUPLICATE  2
stale  2  SUCCEEDED  FOUND           DUPLICATE  2
stale  2  SUCCEEDED  AMBIGUOUS       DUPLICATE  2
stale  2  SUCCEEDED  NOT_FOUND       DUPLICATE  2
stale  2  SUCCEEDED  UNUSABLE        DUPLICATE  2
stale  2  SUCCEEDED  NOT_CONFIGURED  DUPLICATE  2
stale  2  UNKNOWN    FOUND           DUPLICATE  2
stale  2  UNKNOWN    AMBIGUOUS       DUPLICATE  2
stale  2  UNKNOWN    NOT_FOUND       DUPLICATE  2
stale  2  UNKNOWN    UNUSABLE        DUPLICATE  2
stale  2  UNKNOWN    NOT_CONFIGURED  DUPLICATE  2
stale  2  FAILED     FOUND           DUPLICATE  2
stale  2  FAILED     AMBIGUOUS       DUPLICATE  2
stale  2  FAILED     NOT_FOUND       DUPLICATE  2
stale  2  FAILED     UNUSABLE        DUPLICATE  2
stale  2  FAILED     NOT_CONFIGURED  DUPLICATE  2
)";

struct Row {
    QString age, attempts, upstream, verdict;
    int tickets = 0, row = 0;
};

QVector<Row> parseTable()
{
    QVector<Row> rows;
    for (const QString &line : QString::fromUtf8(kTable).split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        if (t.isEmpty() || t.startsWith(QLatin1Char('#')))
            continue;
        const QStringList f = t.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (f.size() != 6)
            qFatal("bad table line: %s", qPrintable(t));
        rows.append(Row{f[0], f[2], f[3], f[4], f[1].toInt(), f[5].toInt()});
    }
    return rows;
}

UpstreamAnswer answer(const QString &name)
{
    if (name == QLatin1String("FOUND"))
        return UpstreamAnswer::Found;
    if (name == QLatin1String("AMBIGUOUS"))
        return UpstreamAnswer::Ambiguous;
    if (name == QLatin1String("NOT_FOUND"))
        return UpstreamAnswer::NotFound;
    if (name == QLatin1String("UNUSABLE"))
        return UpstreamAnswer::Unusable;
    if (name == QLatin1String("NOT_CONFIGURED"))
        return UpstreamAnswer::NotConfigured;
    qFatal("unknown upstream %s", qPrintable(name));
}

const QString kTicketPayload = QStringLiteral("{\"ticket_id\":17,\"amount\":12345678901234567890,\"ratio\":1.10}");
const QString kUpstreamObject = QStringLiteral("{\"id\":99, \"amount\":12345678901234567890,\"ratio\":1.10}");

VerdictInput input(const QString &age, int tickets, const QString &attempts, const QString &upstream)
{
    VerdictInput in;
    in.recordStale = age == QLatin1String("stale");
    for (int i = 0; i < tickets; ++i)
        in.tickets.append(VerdictTicket{bid(17 + i), i == 0 ? std::optional<QString>(kTicketPayload) : std::optional<QString>(QStringLiteral("{}"))});
    if (attempts != QLatin1String("none"))
        in.attemptStatuses.append(attempts);
    in.upstream = answer(upstream);
    if (in.upstream == UpstreamAnswer::Found)
        in.upstreamObject = kUpstreamObject;
    return in;
}

} // namespace

class TestVerdict : public QObject {
    Q_OBJECT
private slots:
    void tableIsComplete();
    void table_data();
    void table();
    void snapshots();
    void reasonText();
    void attemptsAmongOthers();
    void ticketAbsentIsEvidence();
    void manyAttemptsAreSummarised();
    void fromKeyDetail();
    void answerOfEvidence();
};

void TestVerdict::tableIsComplete()
{
    const QVector<Row> rows = parseTable();
    QCOMPARE(rows.size(), 120);
    QSet<QString> combos;
    for (const Row &r : rows)
        combos.insert(QStringLiteral("%1|%2|%3|%4").arg(r.age).arg(r.tickets).arg(r.attempts, r.upstream));
    QCOMPARE(combos.size(), 120);
}

void TestVerdict::table_data()
{
    QTest::addColumn<QString>("age");
    QTest::addColumn<int>("tickets");
    QTest::addColumn<QString>("attempts");
    QTest::addColumn<QString>("upstream");
    QTest::addColumn<QString>("verdict");
    QTest::addColumn<int>("row");
    for (const Row &r : parseTable()) {
        QTest::addRow("%s-%dt-%s-%s", qPrintable(r.age), r.tickets, qPrintable(r.attempts), qPrintable(r.upstream))
            << r.age << r.tickets << r.attempts << r.upstream << r.verdict << r.row;
    }
}

void TestVerdict::table()
{
    QFETCH(QString, age);
    QFETCH(int, tickets);
    QFETCH(QString, attempts);
    QFETCH(QString, upstream);
    QFETCH(QString, verdict);
    QFETCH(int, row);
    const Verdict v = suggestVerdict(input(age, tickets, attempts, upstream));
    QCOMPARE(verdictName(v.kind), verdict);
    QCOMPARE(v.row, row);
    QVERIFY(v.reason.startsWith(QStringLiteral("DESIGN.md §6 row %1 → %2: ").arg(row).arg(verdict)));
    // SUCCESS always says where its snapshot comes from; nothing else carries one.
    if (verdict == QLatin1String("SUCCESS")) {
        QCOMPARE(v.snapshotSource, row == 4 ? QStringLiteral("ticket:17") : QStringLiteral("upstream"));
        QCOMPARE(v.snapshot, std::optional<QString>(row == 4 ? kTicketPayload : kUpstreamObject));
    } else {
        QCOMPARE(v.snapshot, std::nullopt);
        QCOMPARE(v.snapshotSource, QString());
    }
    if (verdict == QLatin1String("DUPLICATE"))
        QCOMPARE(v.canonicalTicketId, tickets > 0 ? optBid(17) : std::nullopt);
    else
        QCOMPARE(v.canonicalTicketId, std::nullopt);
}

void TestVerdict::snapshots()
{
    // Row 4 with a NULL payload: SUCCESS, from the ticket, nothing to write (said so).
    VerdictInput in = input(QStringLiteral("stale"), 1, QStringLiteral("none"), QStringLiteral("UNUSABLE"));
    in.tickets[0].payload = std::nullopt;
    Verdict v = suggestVerdict(in);
    QCOMPARE(v.kind, VerdictKind::Success);
    QCOMPARE(v.row, 4);
    QCOMPARE(v.snapshot, std::nullopt);
    QCOMPARE(v.snapshotSource, QStringLiteral("ticket:17"));
    QVERIFY(v.facts.contains(QStringLiteral("the ticket's payload is NULL: no snapshot to write")));
    // Byte-exact: whitespace and number spelling survive.
    in = input(QStringLiteral("stale"), 0, QStringLiteral("none"), QStringLiteral("FOUND"));
    v = suggestVerdict(in);
    QCOMPARE(v.snapshot->toUtf8(), QByteArray("{\"id\":99, \"amount\":12345678901234567890,\"ratio\":1.10}"));
    // In JSON output the snapshot is a string: exact through any parser.
    const QJsonObject j = QJsonDocument::fromJson(v.toJson()).object();
    QCOMPARE(j[QStringLiteral("verdict")].toString(), QStringLiteral("SUCCESS"));
    QCOMPARE(j[QStringLiteral("row")].toInt(), 5);
    QCOMPARE(j[QStringLiteral("snapshot")].toString(), kUpstreamObject);
    QCOMPARE(j[QStringLiteral("snapshot_source")].toString(), QStringLiteral("upstream"));
    QVERIFY(j[QStringLiteral("canonical_ticket_id")].isNull());
}

void TestVerdict::reasonText()
{
    VerdictInput in = input(QStringLiteral("stale"), 0, QStringLiteral("SUCCEEDED"), QStringLiteral("NOT_FOUND"));
    in.recordNote = QStringLiteral("PROCESSING, updated 6m 12s ago, processing timeout 300 s");
    in.upstreamNote = QStringLiteral("NOT_FOUND: HTTP 404 Not Found with the upstream's JSON body");
    const Verdict v = suggestVerdict(in);
    QCOMPARE(v.why, QStringLiteral("contradiction: the agent saw success"));
    QCOMPARE(v.facts,
             (QStringList{QStringLiteral("record: stale (older than its processing timeout) — PROCESSING, updated 6m 12s ago, processing timeout 300 s"),
                          QStringLiteral("tickets with this key: 0"),
                          QStringLiteral("intent-log attempts: 1 (SUCCEEDED; a SUCCEEDED attempt is present)"),
                          QStringLiteral("upstream: NOT_FOUND — NOT_FOUND: HTTP 404 Not Found with the upstream's JSON body")}));
    QCOMPARE(v.reason,
             QStringLiteral("DESIGN.md §6 row 6 → UNKNOWN: contradiction: the agent saw success. Facts: record: stale (older than its "
                            "processing timeout) — PROCESSING, updated 6m 12s ago, processing timeout 300 s; tickets with this key: 0; "
                            "intent-log attempts: 1 (SUCCEEDED; a SUCCEEDED attempt is present); upstream: NOT_FOUND — NOT_FOUND: HTTP "
                            "404 Not Found with the upstream's JSON body."));
    const Verdict dup = suggestVerdict(input(QStringLiteral("stale"), 2, QStringLiteral("none"), QStringLiteral("FOUND")));
    QVERIFY(dup.facts.contains(QStringLiteral("tickets with this key: 2 (#17, #18)")));
}

void TestVerdict::attemptsAmongOthers()
{
    // Several attempts: one SUCCEEDED among failures still makes row 6; case-insensitive.
    VerdictInput in = input(QStringLiteral("stale"), 0, QStringLiteral("none"), QStringLiteral("NOT_FOUND"));
    in.attemptStatuses = {QStringLiteral("FAILED"), QStringLiteral("UNKNOWN"), QStringLiteral("succeeded")};
    QCOMPARE(suggestVerdict(in).row, 6);
    in.attemptStatuses = {QStringLiteral("FAILED"), QStringLiteral("UNKNOWN"), QStringLiteral("RECONCILE_PENDING")};
    Verdict v = suggestVerdict(in);
    QCOMPARE(v.row, 7);
    QCOMPARE(v.kind, VerdictKind::Failed);
    // An ESCALATED attempt is never FAILED (DESIGN.md §6 "FAILED needs positive evidence of
    // absence"): the agent handed the step to a human.
    in.attemptStatuses << QStringLiteral("escalated");
    v = suggestVerdict(in);
    QCOMPARE(v.row, 6);
    QCOMPARE(v.kind, VerdictKind::Unknown);
    QCOMPARE(v.why, QStringLiteral("the agent escalated this step: a human decides"));
}

void TestVerdict::ticketAbsentIsEvidence()
{
    // failed_evidence = ticket_absent: stale and no ticket is FAILED whatever the upstream
    // says short of FOUND / AMBIGUOUS — exactly where the mark rules allow FAILED.
    for (const char *answer : {"UNUSABLE", "NOT_CONFIGURED", "NOT_FOUND"}) {
        VerdictInput in = input(QStringLiteral("stale"), 0, QStringLiteral("UNKNOWN"), QString::fromLatin1(answer));
        in.ticketAbsentIsEvidence = true;
        const Verdict v = suggestVerdict(in);
        QCOMPARE(v.kind, VerdictKind::Failed);
        QCOMPARE(v.row, 7);
        QCOMPARE(v.why, QLatin1String(answer) == QLatin1String("NOT_FOUND")
                            ? QStringLiteral("confirmed no side effect: safe to retry")
                            : QStringLiteral("confirmed no side effect: the biz_type's side effect is the ticket row "
                                             "(failed_evidence = ticket_absent) and there is none"));
    }
    VerdictInput in = input(QStringLiteral("stale"), 0, QStringLiteral("UNKNOWN"), QStringLiteral("FOUND"));
    in.ticketAbsentIsEvidence = true;
    QCOMPARE(suggestVerdict(in).row, 5);
    in = input(QStringLiteral("stale"), 0, QStringLiteral("SUCCEEDED"), QStringLiteral("UNUSABLE"));
    in.ticketAbsentIsEvidence = true;
    QCOMPARE(suggestVerdict(in).row, 8);
    in = input(QStringLiteral("stale"), 0, QStringLiteral("ESCALATED"), QStringLiteral("NOT_CONFIGURED"));
    in.ticketAbsentIsEvidence = true;
    QCOMPARE(suggestVerdict(in).row, 6);
    in = input(QStringLiteral("young"), 0, QStringLiteral("none"), QStringLiteral("NOT_CONFIGURED"));
    in.ticketAbsentIsEvidence = true;
    QCOMPARE(suggestVerdict(in).row, 1);
    in = input(QStringLiteral("stale"), 1, QStringLiteral("none"), QStringLiteral("NOT_CONFIGURED"));
    in.ticketAbsentIsEvidence = true;
    QCOMPARE(suggestVerdict(in).row, 4);
}

void TestVerdict::manyAttemptsAreSummarised()
{
    // 20,000 attempts: counts per status, first and last, the SHA-256 of the whole list
    // (statuses oldest first, joined by "\n"), never the list itself.
    VerdictInput in = input(QStringLiteral("stale"), 0, QStringLiteral("none"), QStringLiteral("UNUSABLE"));
    for (int i = 0; i < 20000; ++i)
        in.attemptStatuses.append(QStringLiteral("UNKNOWN"));
    Verdict v = suggestVerdict(in);
    const QString fact = QStringLiteral("intent-log attempts: 20000 (20000 UNKNOWN; first UNKNOWN, last UNKNOWN; SHA-256 of the "
                                        "statuses oldest first, one per line: "
                                        "3e1d5c57fde9077fa8589084fef6569035845586c5b2aefbf989089ecb0ae81e; no SUCCEEDED attempt)");
    QCOMPARE(v.facts.at(2), fact);
    QCOMPARE(v.reason, QStringLiteral("DESIGN.md §6 row 8 → UNKNOWN: nothing definitive: query again later or escalate. Facts: "
                                      "record: stale (older than its processing timeout); tickets with this key: 0; %1; upstream: "
                                      "UNUSABLE.")
                           .arg(fact));
    QVERIFY(v.toJson().size() < 1000);

    // Mixed: the most frequent first; a SUCCEEDED among them still decides row 6.
    in.upstream = UpstreamAnswer::NotFound;
    in.attemptStatuses.first() = QStringLiteral("FAILED");
    in.attemptStatuses.last() = QStringLiteral("SUCCEEDED");
    v = suggestVerdict(in);
    QCOMPARE(v.row, 6);
    QCOMPARE(v.facts.at(2), QStringLiteral("intent-log attempts: 20000 (19998 UNKNOWN, 1 FAILED, 1 SUCCEEDED; first FAILED, last "
                                           "SUCCEEDED; SHA-256 of the statuses oldest first, one per line: "
                                           "f2936e2a10be5aac8ec3d2aa621f74e3279360424d8183f10041a3a63942fdd8; a SUCCEEDED attempt is "
                                           "present)"));

    // Up to kAttemptsListedInFull (10) they are listed; 11 are summarised.
    in.attemptStatuses = QStringList(10, QStringLiteral("UNKNOWN"));
    QCOMPARE(suggestVerdict(in).facts.at(2),
             QStringLiteral("intent-log attempts: 10 (UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, "
                            "UNKNOWN; no SUCCEEDED attempt)"));
    in.attemptStatuses.append(QStringLiteral("UNKNOWN"));
    QCOMPARE(suggestVerdict(in).facts.at(2),
             QStringLiteral("intent-log attempts: 11 (11 UNKNOWN; first UNKNOWN, last UNKNOWN; SHA-256 of the statuses oldest first, "
                            "one per line: d2ebe4e502659ca0c689b9d4ce136cfa15c0173d66e27543afa4511affbbc68b; no SUCCEEDED attempt)"));
}

void TestVerdict::fromKeyDetail()
{
    KeyDetail d;
    d.idemKey = QStringLiteral("ticket:create:acme:1");
    RecordDetail r;
    r.idemKey = d.idemKey;
    r.statusCode = Processing;
    r.statusText = QStringLiteral("PROCESSING");
    r.ageSeconds = 372;
    r.processingTimeoutS = 300;
    r.stale = true;
    d.record = r;
    TicketRow t;
    t.id = bid(41);
    t.payload = kTicketPayload;
    d.tickets.append(t);
    IntentAttempt a;
    a.status = QStringLiteral("UNKNOWN");
    d.attempts.append(a);

    UpstreamEvidence e;
    e.classification = UpstreamClass::Found;
    e.message = QStringLiteral("FOUND: one object at \"tickets\" (HTTP 200 OK)");
    e.foundObjects = {kUpstreamObject};
    VerdictInput in = verdictInputFrom(d, &e);
    QCOMPARE(in.recordStale, true);
    QCOMPARE(in.recordNote, QStringLiteral("PROCESSING, updated 6m 12s ago, processing timeout 300 s"));
    QCOMPARE(in.tickets.size(), 1);
    QCOMPARE(in.tickets.first().id, bid(41));
    QCOMPARE(in.attemptStatuses, QStringList{QStringLiteral("UNKNOWN")});
    QCOMPARE(in.upstream, UpstreamAnswer::Found);
    QCOMPARE(in.upstreamObject, kUpstreamObject);
    Verdict v = suggestVerdict(in);
    QCOMPARE(v.row, 4);
    QCOMPARE(v.snapshotSource, QStringLiteral("ticket:41"));

    // A young PROCESSING record holds the verdict at WAIT.
    d.record->stale = false;
    d.record->ageSeconds = 12;
    QCOMPARE(suggestVerdict(verdictInputFrom(d, &e)).row, 1);
    // A FAILED record is not "still running", whatever its age.
    d.record->statusCode = Failed;
    d.record->statusText = QStringLiteral("FAILED");
    in = verdictInputFrom(d, &e);
    QCOMPARE(in.recordStale, true);
    QVERIFY(in.recordNote.endsWith(QStringLiteral("(not PROCESSING: nothing can still be running)")));
    // No record at all; no upstream answer (not queried) → NOT_CONFIGURED.
    d.record.reset();
    d.tickets.clear();
    in = verdictInputFrom(d, nullptr);
    QCOMPARE(in.recordStale, true);
    QCOMPARE(in.recordNote, QStringLiteral("no idempotency record with this key"));
    QCOMPARE(in.upstream, UpstreamAnswer::NotConfigured);
    QCOMPARE(in.upstreamNote, QStringLiteral("not queried"));
    v = suggestVerdict(in);
    QCOMPARE(v.row, 8);
    QCOMPARE(v.kind, VerdictKind::Unknown);
}

void TestVerdict::answerOfEvidence()
{
    UpstreamEvidence e;
    e.classification = UpstreamClass::Ambiguous;
    QCOMPARE(upstreamAnswerOf(e), UpstreamAnswer::Ambiguous);
    e.classification = UpstreamClass::NotFound;
    QCOMPARE(upstreamAnswerOf(e), UpstreamAnswer::NotFound);
    e.classification = UpstreamClass::Unusable;
    e.kind = UnusableKind::Timeout;
    QCOMPARE(upstreamAnswerOf(e), UpstreamAnswer::Unusable);
    e.kind = UnusableKind::NotConfigured; // e.g. the token variable is unset
    QCOMPARE(upstreamAnswerOf(e), UpstreamAnswer::Unusable);
    e.classification = UpstreamClass::NotConfigured;
    QCOMPARE(upstreamAnswerOf(e), UpstreamAnswer::NotConfigured);
}

QTEST_GUILESS_MAIN(TestVerdict)
#include "tst_verdict.moc"
