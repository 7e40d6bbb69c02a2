#pragma once

// The window fixture of the forensics tests (DESIGN.md §7), shared by tests/forensics
// (tst_window), tests/models (WindowEventsModel) and tests/views (the Incident view): a window
// [100 s, 200 s) after 2026-01-01T00:00:00Z with rows on its edges and ties across stores at
// 100 s and 150 s, on every backend and both shapes.
#include "BackendTestUtil.h"
#include "ShapeExpect.h"
#include "ShopShape.h"

#include "Window.h"
#include "Workspace.h"

#include <QDateTime>

namespace triage::test::wfix {

inline const QDateTime kBase(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);

/// ISO UTC text of `ms` milliseconds after 2026-01-01T00:00:00Z.
inline QString iso(qint64 ms)
{
    return kBase.addMSecs(ms).toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'000Z'"));
}

/// A time literal `ms` after the base, for `db`'s dialect (insert*() turn it into the shop's
/// epoch milliseconds).
inline QString ts(const TestDatabase &db, qint64 ms)
{
    return timeLiteral(db, iso(ms));
}

inline UtcMicros at(qint64 ms)
{
    return (kBase.toMSecsSinceEpoch() + ms) * 1000;
}

inline QString record(const TestDatabase &db, const QString &key, qint64 createdMs, qint64 updatedMs, int status,
               const QString &bizType = QStringLiteral("ticket_create"))
{
    RecordSpec r;
    r.key = key;
    r.bizType = bizType;
    r.status = QString::number(status);
    r.created = ts(db, createdMs);
    r.updated = ts(db, updatedMs);
    r.expire = ts(db, updatedMs);
    return insertRecords(db, {r});
}

inline QString intent(const TestDatabase &db, const QString &key, qint64 ms, const QString &status = QStringLiteral("UNKNOWN"))
{
    IntentSpec a;
    a.key = key;
    a.status = status;
    a.created = ts(db, ms);
    return insertIntents(db, {a});
}

inline QString ticket(const TestDatabase &db, int id, const QString &key, qint64 ms)
{
    TicketSpec t;
    t.id = id;
    t.key = key;
    t.tenant = QStringLiteral("acme");
    t.title = QStringLiteral("VPN down");
    t.status = QStringLiteral("OPEN");
    t.payload = QStringLiteral("{}");
    t.created = ts(db, ms);
    return insertTickets(db, {t});
}

inline QString audit(const TestDatabase &db, const QString &key, qint64 ms)
{
    return db.adminExec(QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, action, idem_key, to_state, reason, "
                                       "outcome) VALUES ('r-1', %1, 'alice', 'mark_success', %2, 'SUCCESS', 'upstream says created', "
                                       "'applied')")
                            .arg(ts(db, ms), textLiteral(db, key)));
}

/// The fixture: a window [100 s, 200 s) after the base with rows on its edges and ties
/// across stores at 100 s and 150 s.
inline QString seed(const TestDatabase &db)
{
    Workspace ws(db.config());
    QStringList errors{
        setUpSchema(ws),
        record(db, QStringLiteral("k:a"), 100000, 150000, 1),
        record(db, QStringLiteral("k:b"), 120000, 120000, 0, QStringLiteral("pay_capture")),
        record(db, QStringLiteral("k:c"), 200000, 200000, 0),
        record(db, QStringLiteral("k:z"), 99999, 99999, 0),
        intent(db, QStringLiteral("k:a"), 100000),
        intent(db, QStringLiteral("k:b"), 150000, QStringLiteral("SUCCEEDED")),
        intent(db, QStringLiteral("k:c"), 200000),
        ticket(db, 1, QStringLiteral("k:a"), 100000),
        ticket(db, 2, QStringLiteral("k:b"), 199999),
        audit(db, QStringLiteral("k:a"), 150000),
    };
    errors.removeAll(QString());
    return errors.join(QLatin1Char('\n'));
}


inline WindowQuery window()
{
    WindowQuery q;
    q.from = at(100000);
    q.to = at(200000);
    return q;
}

/// The fixture's events in window order, as lines(); the shop spells ticket statuses its way.
inline QStringList expected(const TestDatabase &db)
{
    static const QStringList defaultShape{
    QStringLiteral("2026-01-01T00:01:40.000000Z idempotency record.created k:a  now SUCCESS"),
    QStringLiteral("2026-01-01T00:01:40.000000Z intent intent.attempt k:a UNKNOWN create_ticket"),
    QStringLiteral("2026-01-01T00:01:40.000000Z ticket ticket.created k:a  VPN down (now OPEN)"),
    QStringLiteral("2026-01-01T00:02:00.000000Z idempotency record.created k:b  now PROCESSING"),
    QStringLiteral("2026-01-01T00:02:30.000000Z idempotency record.updated k:a SUCCESS"),
    QStringLiteral("2026-01-01T00:02:30.000000Z intent intent.attempt k:b SUCCEEDED create_ticket"),
    QStringLiteral("2026-01-01T00:02:30.000000Z console audit k:a applied mark_success"),
    QStringLiteral("2026-01-01T00:03:19.999000Z ticket ticket.created k:b  VPN down (now OPEN)"),
    };
    QStringList out = defaultShape;
    if (db.isShop())
        for (QString &line : out)
            line.replace(QStringLiteral("(now OPEN)"), QStringLiteral("(now %1)").arg(*shopTicketStatus(QStringLiteral("OPEN"))));
    return out;
}


/// The rows the Incident view's event list shows for the fixture over the wide window
/// (00:01:40 .. 00:18:20): "time | store | kind | status | key | actor | detail", gap rows
/// included; shared by the model and the view tests.
inline QStringList wideWindowRows()
{
    return {
        QStringLiteral("2026-01-01T00:01:40.000000Z | idempotency | record.created |  | k:a |  | now SUCCESS"),
        QStringLiteral("2026-01-01T00:01:40.000000Z | intent | intent.attempt | UNKNOWN | k:a | agent-1 | create_ticket"),
        QStringLiteral("2026-01-01T00:01:40.000000Z | ticket | ticket.created |  | k:a |  | VPN down (now OPEN)"),
        QStringLiteral("2026-01-01T00:02:00.000000Z | idempotency | record.created |  | k:b |  | now PROCESSING"),
        QStringLiteral("2026-01-01T00:02:30.000000Z | idempotency | record.updated | SUCCESS | k:a |  | "),
        QStringLiteral("2026-01-01T00:02:30.000000Z | intent | intent.attempt | SUCCEEDED | k:b | agent-1 | create_ticket"),
        QStringLiteral("2026-01-01T00:02:30.000000Z | console | audit | applied | k:a | alice | mark_success"),
        QStringLiteral("2026-01-01T00:03:19.999000Z | ticket | ticket.created |  | k:b |  | VPN down (now OPEN)"),
        QStringLiteral("2026-01-01T00:03:20.000000Z | idempotency | record.created |  | k:c |  | now PROCESSING"),
        QStringLiteral("2026-01-01T00:03:20.000000Z | intent | intent.attempt | UNKNOWN | k:c | agent-1 | create_ticket"),
        QStringLiteral("\u2014 13 min without events \u2014 |  |  |  |  |  | "),
        QStringLiteral("2026-01-01T00:16:40.000000Z | intent | intent.attempt | UNKNOWN | k:late | agent-1 | create_ticket"),
    };
}

/// Two intent attempts for the watermark tests: "w:old" 600 s and "w:recent" `recentAgoS`
/// before the server's now. Returns the error text.
inline QString insertOldAndRecent(const TestDatabase &db, qint64 recentAgoS = 5)
{
    IntentSpec old;
    old.key = QStringLiteral("w:old");
    old.created = serverAgoSeconds(db, 600);
    IntentSpec recent;
    recent.key = QStringLiteral("w:recent");
    recent.created = serverAgoSeconds(db, recentAgoS);
    return insertIntents(db, {old, recent});
}

/// The intent attempts from an hour before to an hour after this machine's now, with a
/// lookback of `lookbackS` (the watermark tests' window).
inline WindowQuery intentsAroundNow(int lookbackS = 60)
{
    WindowQuery q;
    q.from = (QDateTime::currentMSecsSinceEpoch() - 3600 * 1000) * 1000;
    q.to = (QDateTime::currentMSecsSinceEpoch() + 3600 * 1000) * 1000;
    q.kinds = {EventKind::IntentAttempt};
    q.lookbackS = lookbackS;
    return q;
}

/// "<at> <store> <kind> <key> <status> <detail>" per event.
inline QStringList lines(const QVector<WindowEvent> &events)
{
    QStringList out;
    for (const WindowEvent &e : events)
        out << QStringLiteral("%1 %2 %3 %4 %5 %6")
                   .arg(e.atText, eventStoreName(e.store), eventKindName(e.kind), e.idemKey, e.status, e.detail)
                   .trimmed();
    return out;
}

/// Every final event of `query`, paging by `pageSize`; checks each page's size. `*error` is
/// set on a failed page, an oversized page or no end after 1000 pages.
inline QVector<WindowEvent> wholeWindow(Workspace &ws, const WindowQuery &query, int pageSize, QString *error)
{
    QVector<WindowEvent> all;
    WindowCursor cursor;
    for (int guard = 0; guard < 1000; ++guard) {
        const auto page = await(readWindowPage(ws, query, cursor, pageSize));
        if (!page.ok()) {
            *error = page.error->message;
            return all;
        }
        if (page->events.size() > pageSize) {
            *error = QStringLiteral("page of %1 > %2").arg(page->events.size()).arg(pageSize);
            return all;
        }
        all << page->events;
        cursor = page->next;
        if (page->end)
            return all;
    }
    *error = QStringLiteral("no end after 1000 pages");
    return all;
}

/// Fixes NOW() and UTC_TIMESTAMP() of `ws`'s own idempotency-store connection at `epochS`
/// (MariaDB's session `SET timestamp`, on the worker's one connection: a server clock forced
/// off for that session only; DESIGN.md §7 "Zones and clocks"). Returns the error text.
inline QString freezeIdempotencyClock(Workspace &ws, qint64 epochS)
{
    const auto done = await(ws.worker(DbRole::Idempotency).run<int>([epochS](DbSession &s) {
        s.exec(QStringLiteral("SET timestamp = %1").arg(epochS));
        return 0;
    }));
    return done.ok() ? QString() : done.error->message;
}

} // namespace triage::test::wfix
