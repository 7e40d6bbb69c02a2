#include "BackendTestUtil.h"
#include "DbSession.h"
#include "ServerTime.h"
#include "ShopShape.h"
#include "Schema.h"
#include "Queue.h"

#include <QRegularExpression>
#include <QSet>
#include <QUrl>

namespace triage::test {

namespace {

bool isPg(const TestDatabase &db) { return db.dialect() == QLatin1String("postgresql"); }
bool isMy(const TestDatabase &db) { return db.dialect() == QLatin1String("mysql"); }

template <typename Row>
QString insertChunked(const TestDatabase &db, const QString &head, const QVector<Row> &rows,
                      const std::function<QString(const Row &)> &values)
{
    for (int start = 0; start < rows.size(); start += 100) {
        QStringList v;
        for (int i = start; i < qMin<int>(rows.size(), start + 100); ++i)
            v << values(rows[i]);
        const QString err = db.adminExec(head + v.join(QStringLiteral(", ")));
        if (!err.isEmpty())
            return err;
    }
    return {};
}

} // namespace

QString serverAgo(const TestDatabase &db, qint64 micros)
{
    return serverNowMinusMicros(db.backend(), micros);
}

QString timeLiteral(const TestDatabase &db, const QString &iso)
{
    if (isPg(db))
        return QStringLiteral("TIMESTAMPTZ '%1'").arg(iso);
    if (isMy(db)) // DATETIME(6) holds UTC wall time (DESIGN.md §4)
        return QStringLiteral("'%1 %2'").arg(iso.left(10), iso.mid(11, 15));
    return QStringLiteral("'%1'").arg(iso);
}

QString textLiteral(const TestDatabase &db, const std::optional<QString> &text)
{
    if (!text)
        return QStringLiteral("NULL");
    QString t = *text;
    if (isMy(db))
        t.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    t.replace(QLatin1Char('\''), QStringLiteral("''"));
    return QLatin1Char('\'') + t + QLatin1Char('\'');
}

QString databaseName(const TestDatabase &db)
{
    return QUrl(db.url()).path().mid(1);
}

QString insertRecords(const TestDatabase &db, const QVector<RecordSpec> &rows)
{
    if (db.isShop()) {
        // The same logical rows in the shop shape (ShopShape.h): text statuses, epoch ms, a
        // tenant column filled from the key's third field (the default tenant pattern).
        const bool ids = std::any_of(rows.begin(), rows.end(), [](const RecordSpec &r) { return r.id != 0; });
        const QString head = QStringLiteral("INSERT INTO idem_requests (%1request_key, kind, tenant, state, response_body, "
                                            "created_ms, updated_ms) VALUES ")
                                 .arg(ids ? QStringLiteral("req_id, ") : QString());
        return insertChunked<RecordSpec>(db, head, rows, [&](const RecordSpec &r) {
            const QString created = r.created.isEmpty() ? r.updated : r.created;
            const QStringList fields = r.key.split(QLatin1Char(':'));
            const std::optional<QString> tenant = fields.size() >= 3 ? std::optional<QString>(fields[2]) : std::nullopt;
            return QStringLiteral("(%1%2, %3, %4, %5, %6, %7, %8)")
                .arg(ids ? QString::number(r.id) + QStringLiteral(", ") : QString(), textLiteral(db, r.key),
                     textLiteral(db, r.bizType), textLiteral(db, tenant), shopRecordStatus(r.status),
                     textLiteral(db, r.snapshot), epochMillisOf(db.dialect(), created), epochMillisOf(db.dialect(), r.updated));
        });
    }
    const bool ids = std::any_of(rows.begin(), rows.end(), [](const RecordSpec &r) { return r.id != 0; });
    const QString head = QStringLiteral("INSERT INTO idempotency_record (%1idem_key, biz_type, status, result_snapshot, "
                                        "created_at, updated_at, expire_at) VALUES ")
                             .arg(ids ? QStringLiteral("id, ") : QString());
    return insertChunked<RecordSpec>(db, head, rows, [&](const RecordSpec &r) {
        const QString updated = r.updated;
        const QString created = r.created.isEmpty() ? updated : r.created;
        const QString expire = r.expire.isEmpty() ? updated : r.expire;
        return QStringLiteral("(%1%2, %3, %4, %5, %6, %7, %8)")
            .arg(ids ? QString::number(r.id) + QStringLiteral(", ") : QString(), textLiteral(db, r.key),
                 textLiteral(db, r.bizType), r.status, textLiteral(db, r.snapshot), created, updated, expire);
    });
}

QString insertIntents(const TestDatabase &db, const QVector<IntentSpec> &rows)
{
    const bool ids = std::any_of(rows.begin(), rows.end(), [](const IntentSpec &r) { return r.id != 0; });
    const QString head = db.isShop()
        ? QStringLiteral("INSERT INTO agent_steps (%1job_id, step_name, op, request_key, step_state, req_json, resp_json, "
                         "err_text, before_json, after_json, agent, created_ms, updated_ms) VALUES ")
              .arg(ids ? QStringLiteral("step_pk, ") : QString())
        : QStringLiteral("INSERT INTO intent_log (%1task_id, step_id, action, idem_key, status, request, "
                         "response, error, state_before, state_after, actor, created_at, updated_at) VALUES ")
              .arg(ids ? QStringLiteral("id, ") : QString());
    return insertChunked<IntentSpec>(db, head, rows, [&](IntentSpec a) {
        QString updated = a.updated.isEmpty() ? a.created : a.updated;
        if (db.isShop()) {
            a.status = shopIntentStatus(a.status);
            a.created = epochMillisOf(db.dialect(), a.created);
            updated = epochMillisOf(db.dialect(), updated);
        }
        return QStringLiteral("(%1%2, %3, %4, %5, %6, %7, %8, %9, ")
                   .arg(ids ? QString::number(a.id) + QStringLiteral(", ") : QString(), textLiteral(db, a.taskId),
                        textLiteral(db, a.stepId), textLiteral(db, a.action), textLiteral(db, a.key),
                        textLiteral(db, a.status), textLiteral(db, a.request), textLiteral(db, a.response),
                        textLiteral(db, a.error))
            + QStringLiteral("%1, %2, %3, %4, %5)")
                  .arg(textLiteral(db, a.stateBefore), textLiteral(db, a.stateAfter), textLiteral(db, a.actor), a.created,
                       updated);
    });
}

QString insertTickets(const TestDatabase &db, const QVector<TicketSpec> &rows)
{
    if (db.isShop()) {
        // Order ids are UUIDs: a given id n becomes shopOrderId(n); an id the database would
        // choose is taken from a process-wide counter above any given one (ascending, so
        // "oldest first by id" stays true).
        static QAtomicInteger<qint64> next(1000000);
        const QString head = QStringLiteral("INSERT INTO orders (order_id, request_key, tenant, summary, order_state, body, "
                                            "placed_ms, changed_ms) VALUES ");
        return insertChunked<TicketSpec>(db, head, rows, [&](const TicketSpec &t) {
            const QString updated = t.updated.isEmpty() ? t.created : t.updated;
            const qint64 n = t.id != 0 ? t.id : next.fetchAndAddRelaxed(1);
            QString payload = textLiteral(db, t.payload);
            if (db.dialect() == QLatin1String("postgresql") && t.payload)
                payload += QStringLiteral("::jsonb");
            return QStringLiteral("(%1, %2, %3, %4, %5, %6, %7, %8)")
                .arg(textLiteral(db, shopOrderId(n)), textLiteral(db, t.key), textLiteral(db, t.tenant),
                     textLiteral(db, t.title), textLiteral(db, shopTicketStatus(t.status)), payload,
                     epochMillisOf(db.dialect(), t.created), epochMillisOf(db.dialect(), updated));
        });
    }
    const bool ids = std::any_of(rows.begin(), rows.end(), [](const TicketSpec &r) { return r.id != 0; });
    const QString head = QStringLiteral("INSERT INTO ticket (%1idem_key, tenant_id, title, status, payload, created_at, "
                                        "updated_at) VALUES ")
                             .arg(ids ? QStringLiteral("id, ") : QString());
    return insertChunked<TicketSpec>(db, head, rows, [&](const TicketSpec &t) {
        const QString updated = t.updated.isEmpty() ? t.created : t.updated;
        return QStringLiteral("(%1%2, %3, %4, %5, %6, %7, %8)")
            .arg(ids ? QString::number(t.id) + QStringLiteral(", ") : QString(), textLiteral(db, t.key),
                 textLiteral(db, t.tenant), textLiteral(db, t.title), textLiteral(db, t.status),
                 textLiteral(db, t.payload), t.created, updated);
    });
}

QString setUpSchema(Workspace &ws, bool ticketBackstop)
{
    if (ws.config().schema == shopSchemaMap()) {
        // The agents' tables of the shop shape exist before the console comes (as in a real
        // deployment); init-schema then adds only the console's own tables.
        const ConnectionProfile &p = ws.config().idempotency;
        DbSession s(p, QStringLiteral("shop-ddl"));
        try {
            s.ensureOpen();
            for (const QString &statement : shopDdl(dialectName(p.dialect)))
                s.execDirect(statement);
        } catch (const DbException &e) {
            return e.error.message;
        }
    }
    SchemaOptions o;
    o.ticketBackstop = ticketBackstop;
    const Outcome<int> r = initSchema(ws, o).result();
    return r.ok() ? QString() : r.error->message;
}

QString rowTag(const QueueRow &row)
{
    return sourceName(row.source) + QLatin1Char(':') + row.idemKey;
}

QStringList rowTags(const QVector<QueueRow> &rows)
{
    QStringList out;
    for (const QueueRow &r : rows)
        out << rowTag(r);
    return out;
}

QString rowId(const QueueRow &row)
{
    return sourceName(row.source) + QLatin1Char('#') + QString::number(row.id);
}

PagedQueue fetchWholeQueue(Workspace &ws, const QueueRequest &request, int pageSize,
                           const std::function<QString(int)> &betweenPages)
{
    PagedQueue out;
    QueueCursor cursor;
    for (;;) {
        if (out.pages > 100000) {
            out.error = QStringLiteral("more than 100000 pages: the cursor does not advance");
            return out;
        }
        const Outcome<QueuePage> page = fetchQueuePage(ws, request, cursor, pageSize).result();
        ++out.pages;
        if (!page.ok()) {
            out.error = QStringLiteral("page %1: %2").arg(out.pages).arg(page.error->message);
            return out;
        }
        if (page->rows.size() > pageSize) {
            out.error = QStringLiteral("page %1 has %2 rows, more than the page size %3")
                            .arg(out.pages)
                            .arg(page->rows.size())
                            .arg(pageSize);
            return out;
        }
        if (!page->atEnd && page->rows.size() != pageSize) {
            out.error = QStringLiteral("page %1 has %2 rows but is not the last page (page size %3)")
                            .arg(out.pages)
                            .arg(page->rows.size())
                            .arg(pageSize);
            return out;
        }
        out.rows += page->rows;
        cursor = page->next;
        if (page->atEnd)
            return out;
        if (betweenPages) {
            const QString err = betweenPages(out.pages);
            if (!err.isEmpty()) {
                out.error = QStringLiteral("between pages %1 and %2: %3").arg(out.pages).arg(out.pages + 1).arg(err);
                return out;
            }
        }
    }
}

qint64 countOf(Workspace &ws, const QueueRequest &request, QString *error)
{
    const Outcome<qint64> c = countQueue(ws, request).result();
    if (!c.ok()) {
        if (error)
            *error = c.error->message;
        return -1;
    }
    return *c;
}

QString errorsText(const KeyDetail &d)
{
    QStringList out;
    for (const DbError &e : d.errors)
        out << e.message;
    return out.join(QStringLiteral("; "));
}

bool isCanonicalTime(const QString &text)
{
    static const QRegularExpression re(QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$)"));
    return re.match(text).hasMatch();
}

} // namespace triage::test
