#include "BackendTestUtil.h"
#include "ServerTime.h"
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
    const QString head = QStringLiteral("INSERT INTO intent_log (%1task_id, step_id, action, idem_key, status, request, "
                                        "response, error, state_before, state_after, actor, created_at, updated_at) VALUES ")
                             .arg(ids ? QStringLiteral("id, ") : QString());
    return insertChunked<IntentSpec>(db, head, rows, [&](const IntentSpec &a) {
        const QString updated = a.updated.isEmpty() ? a.created : a.updated;
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
