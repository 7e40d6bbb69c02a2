// triagectl on the "shop" shape (tests/support/shop: other table and column names, text
// statuses in odd case and spacing, epoch-millisecond times, UUID order ids, a JSONB/JSON
// body, a tenant column, no expire_at, no version; DESIGN.md §10), on SQLite, PostgreSQL and
// MariaDB: the real executable run as an operator would
//   triagectl --config tests/support/shop/shop.ini --idempotency-db … --intent-db … --ticket-db … list unknown
// with its exact output, then show, mark and duplicates through the CLI. The rows are written
// by the tests' own SQL (BackendTestUtil's shop-aware insert*()), never by the console.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

#define RUN_OK(result, ...)                                                                                           \
    const CtlRun result = runCtl(__VA_ARGS__);                                                                         \
    QVERIFY2(result.finished && result.exitCode == 0, result.describe().constData())

/// One fixed instant per test run, in whole milliseconds (the shop keeps epoch ms): every
/// fixture time is `base` minus a whole number of minutes, so the CLI's ages ("2d 3h") stay
/// exact for the minutes a run takes.
struct Clock {
    QDateTime base = QDateTime::fromMSecsSinceEpoch(QDateTime::currentMSecsSinceEpoch(), Qt::UTC);
    /// Canonical UTC text of base minus `minutes` (six fractional digits, as the console prints).
    QString iso(qint64 minutes) const
    {
        return base.addSecs(-minutes * 60).toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'000Z'"));
    }
    /// A native time literal of `db`'s dialect for iso(minutes) (insert*() store it as epoch ms).
    QString at(const TestDatabase &db, qint64 minutes) const { return timeLiteral(db, iso(minutes)); }
};

constexpr qint64 kHour = 60, kDay = 24 * 60;

/// The demo set's tickets, intent-log rows, and the console's rows of its outage (seed 20261129).
constexpr qint64 kDemoTickets = 194, kDemoIntents = 376, kDemoAudits = 18, kDemoCompensations = 1;

/// Order `id`'s body (and shop-4's snapshot): it names the order by its own id.
QString payloadOf(const TestDatabase &db, qint64 id)
{
    return QStringLiteral("{\"ticket_id\":%1,\"title\":\"VPN down\"}").arg(ticketIdLiteral(db, id));
}

/// The fixture, the same logical rows in any shape:
///  - ticket:create:acme:shop-1   PROCESSING, stale (2d 3h), two live orders 51 and 52 (a
///    duplicate group, a ticket while PROCESSING), two timed-out attempts of task_1/step_1;
///  - ticket:create:globex:shop-2 PROCESSING, stale (1h 5m), no order, no attempt;
///  - ticket:create:acme:shop-3   PROCESSING, 2 minutes old (in flight, not Unknown);
///  - ticket:create:acme:shop-4   SUCCESS, its snapshot order 41's payload (settled, consistent);
///  - refund:issue:acme:shop-5    FAILED (refund_issue);
///  - ticket:create:acme:shop-6   no record; task_2/step_1 waits for reconciliation (5h);
///  - ticket:create:acme:shop-7   no record; task_3/step_1 timed out, then ok (settled).
QString seed(const TestDatabase &db, const Clock &c)
{
    auto payload = [&](qint64 id) { return payloadOf(db, id); };
    auto rec = [&](const QString &key, const QString &biz, const QString &status, qint64 created, qint64 updated,
                   const std::optional<QString> &snapshot = std::nullopt) {
        RecordSpec r;
        r.key = key;
        r.bizType = biz;
        r.status = status;
        r.snapshot = snapshot;
        r.created = c.at(db, created);
        r.updated = c.at(db, updated);
        return r;
    };
    auto ticket = [&](qint64 id, const QString &key, qint64 created) {
        TicketSpec t;
        t.id = id;
        t.key = key;
        t.tenant = QStringLiteral("acme");
        t.title = QStringLiteral("VPN down");
        t.payload = payload(id);
        t.created = c.at(db, created);
        return t;
    };
    auto attempt = [&](const QString &task, const QString &key, const QString &status, qint64 created, qint64 updated,
                       const QString &error) {
        IntentSpec a;
        a.taskId = task;
        a.key = key;
        a.status = status;
        a.request = QStringLiteral("{\"n\":1}");
        a.error = error;
        a.created = c.at(db, created);
        a.updated = c.at(db, updated);
        return a;
    };
    const QString biz = QStringLiteral("ticket_create");
    QStringList errors{
        insertRecords(db, {rec(QStringLiteral("ticket:create:acme:shop-1"), biz, QStringLiteral("0"), 2 * kDay + 4 * kHour, 2 * kDay + 3 * kHour),
                           rec(QStringLiteral("ticket:create:globex:shop-2"), biz, QStringLiteral("0"), kHour + 5, kHour + 5),
                           rec(QStringLiteral("ticket:create:acme:shop-3"), biz, QStringLiteral("0"), 2, 2),
                           rec(QStringLiteral("ticket:create:acme:shop-4"), biz, QStringLiteral("1"), 3 * kDay, 3 * kDay,
                               payload(41)),
                           rec(QStringLiteral("refund:issue:acme:shop-5"), QStringLiteral("refund_issue"), QStringLiteral("2"), 4 * kDay,
                               4 * kDay)}),
        insertTickets(db, {ticket(41, QStringLiteral("ticket:create:acme:shop-4"), 3 * kDay + 1),
                           ticket(51, QStringLiteral("ticket:create:acme:shop-1"), 2 * kDay + 3 * kHour + 50),
                           ticket(52, QStringLiteral("ticket:create:acme:shop-1"), 2 * kDay + 3 * kHour + 40)}),
        insertIntents(db, {attempt(QStringLiteral("task_1"), QStringLiteral("ticket:create:acme:shop-1"), QStringLiteral("UNKNOWN"),
                                   2 * kDay + 4 * kHour, 2 * kDay + 4 * kHour - 1, QStringLiteral("timeout after 30000 ms")),
                           attempt(QStringLiteral("task_1"), QStringLiteral("ticket:create:acme:shop-1"), QStringLiteral("UNKNOWN"),
                                   2 * kDay + 3 * kHour + 55, 2 * kDay + 3 * kHour + 54, QStringLiteral("connection reset")),
                           attempt(QStringLiteral("task_2"), QStringLiteral("ticket:create:acme:shop-6"),
                                   QStringLiteral("RECONCILE_PENDING"), 5 * kHour + 1, 5 * kHour, QString()),
                           attempt(QStringLiteral("task_3"), QStringLiteral("ticket:create:acme:shop-7"), QStringLiteral("UNKNOWN"),
                                   6 * kHour, 6 * kHour, QStringLiteral("timeout")),
                           attempt(QStringLiteral("task_3"), QStringLiteral("ticket:create:acme:shop-7"), QStringLiteral("SUCCEEDED"),
                                   5 * kHour + 30, 5 * kHour + 30, QString())}),
    };
    errors.removeAll(QString());
    return errors.join(QLatin1Char('\n'));
}

/// `o` without the members whose values depend on the moment of the run (ages).
QJsonValue withoutAges(QJsonValue v)
{
    if (v.isArray()) {
        QJsonArray a;
        for (const QJsonValue &e : v.toArray())
            a << withoutAges(e);
        return a;
    }
    if (!v.isObject())
        return v;
    QJsonObject o = v.toObject();
    for (const char *k : {"age_seconds", "expires_in_seconds"})
        o.remove(QLatin1String(k));
    for (auto it = o.begin(); it != o.end(); ++it)
        *it = withoutAges(*it);
    return o;
}

} // namespace

class TstCliShop : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(ctlPath()).isExecutable(), qPrintable(ctlPath())); }
    void listShowMarkDuplicates_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("sqlite/shop") << QStringLiteral("sqlite/shop");
        QTest::newRow("postgresql/shop") << QStringLiteral("postgresql/shop");
        QTest::newRow("mysql/shop") << QStringLiteral("mysql/shop");
    }
    void listShowMarkDuplicates();
    void expectStatusAsStored_data() { listShowMarkDuplicates_data(); }
    void expectStatusAsStored();
    void seedDemo_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, true);
    }
    void seedDemo();
};

void TstCliShop::seedDemo()
{
    // seed-demo through the mapping (DESIGN.md §10): the shop's free-text status column gets
    // "UNMAPPED" for the demo's record with an unknown status, and the output says so; the
    // default schema keeps the code 7 and says nothing more.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws, false));
    }
    const QStringList base = ctlDbArgs(db);
    RUN_OK(text, base + QStringList{QStringLiteral("seed-demo")});
    QString out = QString::fromUtf8(text.out);
    out.replace(QRegularExpression(QStringLiteral(" in [0-9]+\\.[0-9]{2} s\n")), QStringLiteral(" in X s\n"));
    const QString note = db.isShop() ? QStringLiteral("note: the record with an unknown status holds \"UNMAPPED\" (no status is mapped to it)\n")
                                     : QString();
    QCOMPARE(out, QStringLiteral("seeded the demo set (seed 20261129): 299 records, %1 tickets, %2 intent-log rows, %3 audit rows, "
                                 "%4 compensation(s) in X s\n")
                      .arg(kDemoTickets)
                      .arg(kDemoIntents)
                      .arg(kDemoAudits)
                      .arg(kDemoCompensations)
                      + note);
    RUN_OK(json, base + QStringList{QStringLiteral("seed-demo"), QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--format"),
                                    QStringLiteral("json")});
    QJsonObject o = QJsonDocument::fromJson(json.out).object();
    QVERIFY(o.take(QStringLiteral("elapsed_seconds")).isDouble());
    QJsonObject expected{{QStringLiteral("records"), QJsonValue::fromVariant(o.value(QStringLiteral("records")).toInteger())},
                         {QStringLiteral("seed"), 7},
                         {QStringLiteral("biz_type_value"), QJsonValue::Null},
                         {QStringLiteral("other_biz_type_records_left_out"), 0},
                         {QStringLiteral("unknown_status_records"), 1},
                         {QStringLiteral("unknown_status_stored"), db.isShop() ? QStringLiteral("UNMAPPED") : QStringLiteral("7")},
                         {QStringLiteral("backstop_refused_tickets"), 0},
                         {QStringLiteral("notes"), db.isShop() ? QJsonArray{note.mid(6).chopped(1)} : QJsonArray{}},
                         {QStringLiteral("tickets"), o.value(QStringLiteral("tickets"))},
                         {QStringLiteral("intents"), o.value(QStringLiteral("intents"))},
                         {QStringLiteral("audit_rows"), kDemoAudits},
                         {QStringLiteral("compensations"), kDemoCompensations}};
    QCOMPARE(o, expected);
    QCOMPARE(o.value(QStringLiteral("records")).toInteger(), 299);
    // Both seeds are in the database (seed 7's keys differ from seed 20261129's).
    QCOMPARE(db.adminQueryColumn(db.isShop() ? QStringLiteral("SELECT COUNT(*) FROM idem_requests")
                                             : QStringLiteral("SELECT COUNT(*) FROM idempotency_record")),
             QStringList{QStringLiteral("598")});
}

void TstCliShop::listShowMarkDuplicates()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QVERIFY(db.isShop());
    const QStringList base = ctlDbArgs(db); // --config tests/support/shop/shop.ini and the three URLs
    QCOMPARE(base.mid(0, 2), (QStringList{QStringLiteral("--config"), shopIniPath()}));
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws, false)); // the shop tables as the agents made them, then the console's own
    }
    const Clock c;
    TRIAGE_OK(seed(db, c));
    auto payload = [&](qint64 id) { return payloadOf(db, id); };

    // Oldest updated_at first: the latest attempt of shop-1 (its earlier one is not the
    // latest), the stale records, the step waiting for reconciliation; shop-3 is in flight,
    // shop-7's step settled, shop-4 and shop-5 are settled.
    RUN_OK(list, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown")});
    const QString table = QStringLiteral(
        "SOURCE  STATUS             BIZ_TYPE/ACTION  UPDATED_AT (UTC)               AGE  IDEM_KEY\n"
        "intent  UNKNOWN            create_ticket    %1  2d 3h  ticket:create:acme:shop-1\n"
        "record  PROCESSING         ticket_create    %2  2d 3h  ticket:create:acme:shop-1\n"
        "intent  RECONCILE_PENDING  create_ticket    %3  5h 0m  ticket:create:acme:shop-6\n"
        "record  PROCESSING         ticket_create    %4  1h 5m  ticket:create:globex:shop-2\n"
        "4 rows (of 4)\n")
        .arg(c.iso(2 * kDay + 3 * kHour + 54), c.iso(2 * kDay + 3 * kHour), c.iso(5 * kHour), c.iso(kHour + 5));
    QCOMPARE(QString::fromUtf8(list.out), table);
    // With a config file the console names each biz_type that has records but no [biz.*]
    // section (shop.ini has map sections only): a warning, not an error.
    auto noSection = [&](const QString &config, const QString &biz) {
        return QStringLiteral("triagectl: warning: config %1: biz_type \"%2\" has idempotency records but no [biz.%2] section: "
                              "its records use processing_timeout 300 s and no upstream\n")
            .arg(config, biz);
    };
    QCOMPARE(QString::fromUtf8(list.err), noSection(shopIniPath(), QStringLiteral("refund_issue")) + noSection(shopIniPath(), QStringLiteral("ticket_create")));

    // JSON: every member exact (expire_at null: the shop has none), ages bracketed.
    RUN_OK(json, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray rows = QJsonDocument::fromJson(json.out).array();
    auto intentRow = [&](qint64 id, const QString &key, const QString &status, const QString &task, qint64 created, qint64 updated) {
        return QJsonObject{{"action", "create_ticket"}, {"biz_type", QJsonValue()}, {"created_at", c.iso(created)},
                           {"expire_at", QJsonValue()}, {"id", id}, {"idem_key", key}, {"source", "intent"}, {"status", status},
                           {"step_id", "step_1"}, {"task_id", task}, {"updated_at", c.iso(updated)}};
    };
    auto recordRow = [&](qint64 id, const QString &key, qint64 created, qint64 updated) {
        return QJsonObject{{"action", QJsonValue()}, {"biz_type", "ticket_create"}, {"created_at", c.iso(created)},
                           {"expire_at", QJsonValue()}, {"id", id}, {"idem_key", key}, {"source", "record"}, {"status", "PROCESSING"},
                           {"step_id", QJsonValue()}, {"task_id", QJsonValue()}, {"updated_at", c.iso(updated)}};
    };
    QCOMPARE(withoutAges(rows),
             QJsonValue(QJsonArray{
                 intentRow(2, QStringLiteral("ticket:create:acme:shop-1"), QStringLiteral("UNKNOWN"), QStringLiteral("task_1"),
                           2 * kDay + 3 * kHour + 55, 2 * kDay + 3 * kHour + 54),
                 recordRow(1, QStringLiteral("ticket:create:acme:shop-1"), 2 * kDay + 4 * kHour, 2 * kDay + 3 * kHour),
                 intentRow(3, QStringLiteral("ticket:create:acme:shop-6"), QStringLiteral("RECONCILE_PENDING"), QStringLiteral("task_2"),
                           5 * kHour + 1, 5 * kHour),
                 recordRow(2, QStringLiteral("ticket:create:globex:shop-2"), kHour + 5, kHour + 5)}));
    const QList<qint64> ageMinutes{2 * kDay + 3 * kHour + 54, 2 * kDay + 3 * kHour, 5 * kHour, kHour + 5};
    for (int i = 0; i < rows.size(); ++i) {
        const double age = rows.at(i).toObject().value(QStringLiteral("age_seconds")).toDouble(-1);
        QVERIFY2(age >= ageMinutes.at(i) * 60 && age < ageMinutes.at(i) * 60 + 600, qPrintable(QString::number(age)));
    }
    // show KEY --format json: the record in console terms (no expire_at, no version column,
    // nothing left over as "other" columns: every shop column is mapped), the orders with
    // their UUID ids and bodies as stored, the attempts, the timeline, the warnings.
    const QString k1 = QStringLiteral("ticket:create:acme:shop-1");
    RUN_OK(show, base + QStringList{QStringLiteral("show"), k1, QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonObject d = QJsonDocument::fromJson(show.out).object();
    QJsonObject rec = withoutAges(d.value(QStringLiteral("record"))).toObject();
    QVERIFY2(isCanonicalTime(rec.take(QStringLiteral("server_now")).toString()), show.out.constData());
    QCOMPARE(rec, (QJsonObject{{"biz_type", "ticket_create"}, {"created_at", c.iso(2 * kDay + 4 * kHour)}, {"expire_at", QJsonValue()},
                               {"has_version_column", false}, {"id", 1}, {"idem_key", k1}, {"other_columns", QJsonObject()},
                               {"processing_timeout_s", 300}, {"result_snapshot", QJsonValue()}, {"stale", true},
                               {"status", "PROCESSING"}, {"status_code", 0},
                               {"status_stored", db.isShop() ? QJsonValue("pending ") : QJsonValue(0)}, {"tenant", "acme"},
                               {"updated_at", c.iso(2 * kDay + 3 * kHour)}, {"version", QJsonValue()}}));
    QVERIFY(d.value(QStringLiteral("record")).toObject().value(QStringLiteral("expires_in_seconds")).isNull());
    auto order = [&](qint64 n, qint64 created) {
        return QJsonObject{{"created_at", c.iso(created)}, {"id", ticketIdText(db, n)}, {"idem_key", k1},
                           {"payload", storedPayloadText(db, payload(n))}, {"status", "live"}, {"tenant_id", "acme"},
                           {"title", "VPN down"}, {"updated_at", c.iso(created)}};
    };
    QCOMPARE(d.value(QStringLiteral("tickets")).toArray(),
             (QJsonArray{order(51, 2 * kDay + 3 * kHour + 50), order(52, 2 * kDay + 3 * kHour + 40)}));
    auto attemptJson = [&](qint64 id, qint64 created, const QString &error) {
        return QJsonObject{{"action", "create_ticket"}, {"actor", "agent-1"}, {"created_at", c.iso(created)}, {"error", error},
                           {"id", id}, {"idem_key", k1}, {"request", "{\"n\":1}"}, {"response", QJsonValue()},
                           {"state_after", QJsonValue()}, {"state_before", QJsonValue()}, {"status", "UNKNOWN"},
                           {"step_id", "step_1"}, {"task_id", "task_1"}, {"updated_at", c.iso(created - 1)}};
    };
    QCOMPARE(d.value(QStringLiteral("attempts")).toArray(),
             (QJsonArray{attemptJson(1, 2 * kDay + 4 * kHour, QStringLiteral("timeout after 30000 ms")),
                         attemptJson(2, 2 * kDay + 3 * kHour + 55, QStringLiteral("connection reset"))}));
    QStringList timeline;
    for (const QJsonValue &e : d.value(QStringLiteral("timeline")).toArray())
        timeline << QStringList{e[QLatin1String("time")].toString(), e[QLatin1String("source")].toString(), e[QLatin1String("kind")].toString(),
                                e[QLatin1String("summary")].toString()}
                        .join(QLatin1Char('|'));
    const QString o51 = ticketIdText(db, 51), o52 = ticketIdText(db, 52);
    QCOMPARE(timeline,
             (QStringList{c.iso(2 * kDay + 4 * kHour) + QStringLiteral("|idempotency_record|created|record created (biz_type ticket_create)"),
                          c.iso(2 * kDay + 4 * kHour) + QStringLiteral("|intent_log|intent|intent: create_ticket (task task_1 step step_1, attempt 1) by agent-1"),
                          c.iso(2 * kDay + 4 * kHour - 1) + QStringLiteral("|intent_log|result|result: UNKNOWN (error: timeout after 30000 ms)"),
                          c.iso(2 * kDay + 3 * kHour + 55) + QStringLiteral("|intent_log|intent|intent: create_ticket (task task_1 step step_1, attempt 2) by agent-1"),
                          c.iso(2 * kDay + 3 * kHour + 54) + QStringLiteral("|intent_log|result|result: UNKNOWN (error: connection reset)"),
                          c.iso(2 * kDay + 3 * kHour + 50) + QStringLiteral("|ticket|created|ticket #%1 created (tenant acme; now live): VPN down").arg(o51),
                          c.iso(2 * kDay + 3 * kHour + 40) + QStringLiteral("|ticket|created|ticket #%1 created (tenant acme; now live): VPN down").arg(o52),
                          c.iso(2 * kDay + 3 * kHour) + QStringLiteral("|idempotency_record|updated|record last updated: status PROCESSING")}));
    QCOMPARE(d.value(QStringLiteral("warnings")).toArray(),
             (QJsonArray{"2 tickets carry this key: a duplicate-key group (the backstop was breached)",
                         "a ticket exists but the record is still PROCESSING: the side effect happened"}));
    QCOMPARE(d.value(QStringLiteral("errors")).toObject(), QJsonObject());
    QCOMPARE(d.value(QStringLiteral("audit")).toArray(), QJsonArray());
    // The table form names the stored spelling of the status and lists no column twice.
    RUN_OK(showTable, base + QStringList{QStringLiteral("show"), k1});
    const QStringList showLines = QString::fromUtf8(showTable.out).split(QLatin1Char('\n'));
    const qsizetype head = showLines.indexOf(QStringLiteral("  FIELD       VALUE"));
    QVERIFY2(head > 0, showTable.out.constData());
    // The eleven console fields and no more (the times carry the operator's local time, the age the run's moment).
    QCOMPARE(showLines.at(head + 12), QStringLiteral("  result_snapshot: NULL"));
    for (const auto &[row, text] : {std::pair{1, QStringLiteral("  id          1")},
                                    std::pair{2, QStringLiteral("  idem_key    ") + k1},
                                    std::pair{3, QStringLiteral("  biz_type    ticket_create")},
                                    std::pair{4, QStringLiteral("  status      PROCESSING (stored \"pending \"): stale, outcome UNKNOWN")},
                                    std::pair{5, QStringLiteral("  created_at  ") + c.iso(2 * kDay + 4 * kHour) + QStringLiteral("  (local ")},
                                    std::pair{6, QStringLiteral("  updated_at  ") + c.iso(2 * kDay + 3 * kHour) + QStringLiteral("  (local ")},
                                    std::pair{7, QStringLiteral("  expire_at   (no expire_at column)")},
                                    std::pair{8, QStringLiteral("  version     (no version column)")},
                                    std::pair{9, QStringLiteral("  age         2d 3h (")},
                                    std::pair{10, QStringLiteral("  expires in  unknown")},
                                    std::pair{11, QStringLiteral("  tenant      acme")}})
        QVERIFY2(text.endsWith(QLatin1Char('(')) || text.endsWith(QLatin1String("(local ")) ? showLines.at(head + row).startsWith(text)
                                                                                             : showLines.at(head + row) == text,
                 qPrintable(showLines.at(head + row)));

    // duplicates: shop-1's two live orders, each an order while the record is PROCESSING.
    auto duplicates = [&](const QString &recordStatus, const QJsonArray &inconsistencies) {
        return QJsonObject{{"groups", QJsonArray{QJsonObject{{"first_created_at", c.iso(2 * kDay + 3 * kHour + 50)}, {"idem_key", k1},
                                                             {"last_created_at", c.iso(2 * kDay + 3 * kHour + 40)}, {"live", 2},
                                                             {"record_status", recordStatus}, {"resolved", false}, {"size", 2},
                                                             {"tenants", QJsonArray{"acme"}}}}},
                           {"inconsistencies", inconsistencies},
                           {"regenerated_keys", QJsonArray()}};
    };
    auto unsettled = [&](const QString &order) {
        return QJsonObject{{"detail", QStringLiteral("ticket %1 exists but the record is PROCESSING").arg(order)}, {"idem_key", k1},
                           {"kind", "ticket_with_unsettled_record"}, {"record_id", 1}, {"record_status", "PROCESSING"},
                           {"ticket_id", order}};
    };
    RUN_OK(dup, base + QStringList{QStringLiteral("duplicates"), QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(dup.out).object(), duplicates(QStringLiteral("PROCESSING"), QJsonArray{unsettled(o51), unsettled(o52)}));
    RUN_OK(dupTable, base + QStringList{QStringLiteral("duplicates")});
    QVERIFY2(dupTable.out.contains("\n1 duplicate-key group (unresolved)\n") && dupTable.out.contains("\n2 inconsistencies\n")
                 && dupTable.out.endsWith("\n0 steps with regenerated keys\n"),
             dupTable.out.constData());

    // mark through the CLI, with a config file of our own: the shop's map sections, then
    // ticket_create's side effect is the order (failed_evidence = ticket_absent).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(shapeIniText(db) + "[biz.ticket_create]\nfailed_evidence = ticket_absent\n");
    }
    const QStringList marking = QStringList{QStringLiteral("--operator"), QStringLiteral("alice")} + ctlDbArgs(db, ini);
    const QString reason = QStringLiteral("verified in the shop's order console");
    const QString warning = noSection(ini, QStringLiteral("refund_issue"));
    auto mark = [&](const QString &key, const QStringList &more) {
        return runCtl(marking + QStringList{QStringLiteral("mark"), key} + more + QStringList{QStringLiteral("--reason"), reason});
    };
    auto updatedOf = [&](const QString &key) {
        const CtlRun r = runCtl(base + QStringList{QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")});
        return QJsonDocument::fromJson(r.out).object().value(QStringLiteral("record")).toObject().value(QStringLiteral("updated_at")).toString();
    };
    auto stateOf = [&](const QString &key) {
        return db.adminQueryColumn(QStringLiteral("SELECT state FROM idem_requests WHERE request_key = '%1'").arg(key));
    };
    // Stale, no order carries the key: FAILED applied (0), written as the first spelling "ERROR".
    const QString k2 = QStringLiteral("ticket:create:globex:shop-2");
    CtlRun r = mark(k2, {QStringLiteral("--to"), QStringLiteral("failed")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out),
             QStringLiteral("OUTCOME  IDEM_KEY                     MESSAGE\n"
                            "applied  %1  PROCESSING → FAILED allowed: failed_evidence = ticket_absent: stale and no ticket carries the key\n"
                            "record now: status FAILED, updated_at %2\n"
                            "1 record(s): 1 applied\n")
                 .arg(k2, updatedOf(k2)));
    QCOMPARE(QString::fromUtf8(r.err), warning);
    QCOMPARE(stateOf(k2), QStringList{QStringLiteral("ERROR")});
    // Two minutes old: refused (4), nothing written.
    const QString k3 = QStringLiteral("ticket:create:acme:shop-3");
    r = mark(k3, {QStringLiteral("--to"), QStringLiteral("failed")});
    QVERIFY2(r.exitCode == 4, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out),
             QStringLiteral("OUTCOME  IDEM_KEY                   MESSAGE\n"
                            "refused  %1  FAILED means \"confirmed no side effect\" (DESIGN.md §6), but the record is younger than its "
                            "processing timeout of 300 s (the request may still be running)\n"
                            "record now: status PROCESSING, updated_at %2\n"
                            "1 record(s): 1 refused\n")
                 .arg(k3, c.iso(2)));
    QCOMPARE(stateOf(k3), QStringList{QStringLiteral("pending ")});
    // A SUCCESS snapshot only from the canonical order (51, the earliest live one): 52 refused (4).
    r = mark(k1, {QStringLiteral("--to"), QStringLiteral("success"), QStringLiteral("--snapshot-from-ticket"), o52});
    QVERIFY2(r.exitCode == 4, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out),
             QStringLiteral("OUTCOME  IDEM_KEY                   MESSAGE\n"
                            "refused  %1  ticket #%2 is not the canonical ticket of this key (#%3: no SUCCESS snapshot names one of "
                            "these tickets: the earliest live ticket (#%3, created %4)): a SUCCESS snapshot comes only from the "
                            "canonical ticket (DESIGN.md §6)\n"
                            "record now: status PROCESSING, updated_at %5\n"
                            "1 record(s): 1 refused\n")
                 .arg(k1, o52, o51, c.iso(2 * kDay + 3 * kHour + 50), c.iso(2 * kDay + 3 * kHour)));
    r = mark(k1, {QStringLiteral("--to"), QStringLiteral("success"), QStringLiteral("--snapshot-from-ticket"), o51});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out),
             QStringLiteral("OUTCOME  IDEM_KEY                   MESSAGE\n"
                            "applied  %1  PROCESSING → SUCCESS allowed\n"
                            "record now: status SUCCESS, updated_at %2\n"
                            "1 record(s): 1 applied\n")
                 .arg(k1, updatedOf(k1)));
    QCOMPARE(stateOf(k1), QStringList{QStringLiteral("DONE")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT response_body FROM idem_requests WHERE request_key = '%1'").arg(k1)),
             QStringList{storedPayloadText(db, payload(51))}); // order 51's body exactly as the orders table gives it
    const QString actionOutcome = db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(idem_key, ' ', action, ':', outcome)")
                                                                         : QStringLiteral("idem_key || ' ' || action || ':' || outcome");
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(actionOutcome)),
             (QStringList{k2 + QStringLiteral(" mark_failed:applied"), k3 + QStringLiteral(" mark_failed:refused"),
                          k1 + QStringLiteral(" mark_success:refused"), k1 + QStringLiteral(" mark_success:applied")}));

    // Settled now: the group's record is SUCCESS (no more inconsistency), and Unknown holds
    // only the step waiting for reconciliation.
    RUN_OK(dup2, base + QStringList{QStringLiteral("duplicates"), QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(dup2.out).object(), duplicates(QStringLiteral("SUCCESS"), QJsonArray()));
    RUN_OK(list2, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown")});
    QCOMPARE(QString::fromUtf8(list2.out),
             QStringLiteral("SOURCE  STATUS             BIZ_TYPE/ACTION  UPDATED_AT (UTC)               AGE  IDEM_KEY\n"
                            "intent  RECONCILE_PENDING  create_ticket    %1  5h 0m  ticket:create:acme:shop-6\n"
                            "1 row (of 1)\n")
                 .arg(c.iso(5 * kHour)));
}

void TstCliShop::expectStatusAsStored()
{
    // DESIGN.md §5, §10: --expect-status takes a status name (any stored spelling) or the value
    // exactly as stored (show --format json: status_stored), compared exactly; show prints
    // status_stored and SQL NULL in other_columns as null.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QVERIFY(db.isShop());
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws, false));
    }
    const Clock c;
    auto rec = [&](const QString &key, const QString &status) {
        RecordSpec r;
        r.key = key;
        r.status = status;
        r.created = c.at(db, kHour + 1);
        r.updated = c.at(db, kHour);
        return r;
    };
    const QString k1 = QStringLiteral("ticket:create:acme:sp-1"), k2 = QStringLiteral("ticket:create:acme:sp-2"),
                  k3 = QStringLiteral("ticket:create:acme:sp-3");
    TRIAGE_OK(insertRecords(db, {rec(k1, QStringLiteral("0")), rec(k2, QStringLiteral("0")), rec(k3, QStringLiteral("'WEIRD'"))}));
    // A column the mapping leaves out: NULL on sp-3, the text NULL on sp-2.
    TRIAGE_OK(db.adminExec(QStringLiteral("ALTER TABLE idem_requests ADD COLUMN note VARCHAR(20)")));
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE idem_requests SET note = 'NULL' WHERE request_key = '%1'").arg(k2)));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(shapeIniText(db) + "[biz.ticket_create]\nfailed_evidence = ticket_absent\n");
    }
    const QStringList args = QStringList{QStringLiteral("--operator"), QStringLiteral("alice")} + ctlDbArgs(db, ini);
    auto show = [&](const QString &key) {
        const CtlRun r = runCtl(args + QStringList{QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")});
        return QJsonDocument::fromJson(r.out).object().value(QStringLiteral("record")).toObject();
    };
    auto state = [&](const QString &key) {
        return db.adminQueryColumn(QStringLiteral("SELECT state FROM idem_requests WHERE request_key = '%1'").arg(key)).value(0);
    };
    auto mark = [&](const QString &key, const QString &expectStatus) {
        return runCtl(args + QStringList{QStringLiteral("mark"), key, QStringLiteral("--to"), QStringLiteral("failed"),
                                         QStringLiteral("--reason"), QStringLiteral("no order carries the key"),
                                         QStringLiteral("--expect-status"), expectStatus, QStringLiteral("--expect-updated-at"),
                                         c.iso(kHour)});
    };

    const QJsonObject s3 = show(k3);
    QCOMPARE(s3.value(QStringLiteral("status")), QJsonValue(QStringLiteral("UNKNOWN_CODE_WEIRD")));
    QCOMPARE(s3.value(QStringLiteral("status_code")), QJsonValue(QJsonValue::Null));
    QCOMPARE(s3.value(QStringLiteral("status_stored")), QJsonValue(QStringLiteral("WEIRD")));
    QCOMPARE(s3.value(QStringLiteral("other_columns")), QJsonValue(QJsonObject{{QStringLiteral("note"), QJsonValue(QJsonValue::Null)}}));
    const QJsonObject s2 = show(k2);
    QCOMPARE(s2.value(QStringLiteral("status_stored")), QJsonValue(QStringLiteral("pending ")));
    QCOMPARE(s2.value(QStringLiteral("other_columns")), QJsonValue(QJsonObject{{QStringLiteral("note"), QStringLiteral("NULL")}}));

    // The stored spelling, trailing space included: applied, written as "ERROR".
    CtlRun r = mark(k1, QStringLiteral("pending "));
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(state(k1), QStringLiteral("ERROR"));

    // The spelling was rewritten since ("pending " → "PENDING", same time): a conflict (3).
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE idem_requests SET state = 'PENDING' WHERE request_key = '%1'").arg(k2)));
    r = mark(k2, QStringLiteral("pending "));
    QVERIFY2(r.exitCode == 3, r.describe().constData());
    QVERIFY2(r.out.startsWith("OUTCOME   IDEM_KEY                 MESSAGE\nconflict  "), r.out.constData());
    QCOMPARE(state(k2), QStringLiteral("PENDING"));
    // The name matches any stored spelling of the status: applied.
    r = mark(k2, QStringLiteral("Processing"));
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(state(k2), QStringLiteral("ERROR"));

    // A value no spelling matches, as stored or as the status text shows it: the expectation
    // holds, and the rules refuse the transition (4); another case of it, or a status name,
    // is a conflict (3). Nothing is written.
    const QByteArray refused = "refused  ticket:create:acme:sp-3  UNKNOWN_CODE_WEIRD → FAILED is not an allowed transition "
                               "(allowed: PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS)\n";
    for (const QString &s : {QStringLiteral("WEIRD"), QStringLiteral("UNKNOWN_CODE_WEIRD")}) {
        r = mark(k3, s);
        QVERIFY2(r.exitCode == 4 && r.out.contains(refused), r.describe().constData());
    }
    for (const QString &s : {QStringLiteral("weird"), QStringLiteral("processing"), QStringLiteral("NULL")}) {
        r = mark(k3, s);
        QVERIFY2(r.exitCode == 3, r.describe().constData());
    }
    QCOMPARE(state(k3), QStringLiteral("WEIRD"));
    r = mark(k3, QString());
    QVERIFY2(r.exitCode == 1, r.describe().constData());
}

QTEST_GUILESS_MAIN(TstCliShop)
#include "tst_cli_shop.moc"
