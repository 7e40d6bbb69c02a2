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
    QStringLiteral("2026-01-01T00:01:40.000000Z ticket ticket.created k:a OPEN VPN down"),
    QStringLiteral("2026-01-01T00:02:00.000000Z idempotency record.created k:b  now PROCESSING"),
    QStringLiteral("2026-01-01T00:02:30.000000Z idempotency record.updated k:a SUCCESS"),
    QStringLiteral("2026-01-01T00:02:30.000000Z intent intent.attempt k:b SUCCEEDED create_ticket"),
    QStringLiteral("2026-01-01T00:02:30.000000Z console audit k:a applied mark_success"),
    QStringLiteral("2026-01-01T00:03:19.999000Z ticket ticket.created k:b OPEN VPN down"),
    };
    QStringList out = defaultShape;
    if (db.isShop())
        for (QString &line : out)
            line.replace(QStringLiteral(" OPEN "), QLatin1Char(' ') + *shopTicketStatus(QStringLiteral("OPEN")) + QLatin1Char(' '));
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
        QStringLiteral("2026-01-01T00:01:40.000000Z | ticket | ticket.created | OPEN | k:a |  | VPN down"),
        QStringLiteral("2026-01-01T00:02:00.000000Z | idempotency | record.created |  | k:b |  | now PROCESSING"),
        QStringLiteral("2026-01-01T00:02:30.000000Z | idempotency | record.updated | SUCCESS | k:a |  | "),
        QStringLiteral("2026-01-01T00:02:30.000000Z | intent | intent.attempt | SUCCEEDED | k:b | agent-1 | create_ticket"),
        QStringLiteral("2026-01-01T00:02:30.000000Z | console | audit | applied | k:a | alice | mark_success"),
        QStringLiteral("2026-01-01T00:03:19.999000Z | ticket | ticket.created | OPEN | k:b |  | VPN down"),
        QStringLiteral("2026-01-01T00:03:20.000000Z | idempotency | record.created |  | k:c |  | now PROCESSING"),
        QStringLiteral("2026-01-01T00:03:20.000000Z | intent | intent.attempt | UNKNOWN | k:c | agent-1 | create_ticket"),
        QStringLiteral("\u2014 13 min without events \u2014 |  |  |  |  |  | "),
        QStringLiteral("2026-01-01T00:16:40.000000Z | intent | intent.attempt | UNKNOWN | k:late | agent-1 | create_ticket"),
    };
}

} // namespace triage::test::wfix
