#pragma once

// What changes with the schema shape of a test database (the default schema, or the "shop"
// shape of ShopShape.h on a "<backend>/shop" row), in ONE place, so a suite keeps the same
// exact expectations on both: the ticket id standing for the default shape's ticket n (a
// number there, a UUID order id in the shop shape), and the triagectl arguments and config
// text that carry the shape's mapping (DESIGN.md §10).
#include "BusinessId.h"
#include "ShopShape.h"
#include "TestDatabases.h"

#include <QFile>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace triage::test {

/// The exact text of the ticket id standing for the default shape's ticket `n` on `db`'s
/// shape: "41" on the default schema (an integer id column), shopOrderId(41) on a shop row
/// (orders.order_id is a UUID: insertTickets() writes ticket n as that order id).
inline QString ticketIdText(const TestDatabase &db, qint64 n)
{
    return db.isShop() ? shopOrderId(n) : QString::number(n);
}

/// The same as the opaque id the console reads back (BusinessId::fromColumn keeps a UUID in
/// its lower-case spelling, which shopOrderId() already is).
inline BusinessId ticketIdOf(const TestDatabase &db, qint64 n)
{
    return BusinessId(ticketIdText(db, n));
}

/// The id as every JSON output prints it (BusinessId::toJson()): a number on the default
/// schema, a string on a shop row.
inline QJsonValue ticketIdJson(const TestDatabase &db, qint64 n)
{
    return ticketIdOf(db, n).toJson();
}

/// The id as a JSON literal inside a payload or snapshot text: `41` on the default schema,
/// `"00000000-0000-4000-8000-000000000041"` on a shop row (a snapshot names its ticket with
/// the ticket table's own id: snapshotNamedTicketId()).
inline QString ticketIdLiteral(const TestDatabase &db, qint64 n)
{
    return db.isShop() ? QLatin1Char('"') + shopOrderId(n) + QLatin1Char('"') : QString::number(n);
}

/// `{"ticket_id":<ticketIdLiteral(n)>}`, the payload / snapshot most tests use.
inline QString ticketIdPayload(const TestDatabase &db, qint64 n)
{
    return QStringLiteral("{\"ticket_id\":%1}").arg(ticketIdLiteral(db, n));
}

/// `payload` as the ticket table of `db`'s shape gives it back: unchanged, except on the
/// PostgreSQL shop row, whose orders.body is JSONB (the server keeps its own canonical text:
/// keys sorted by length then bytes, ", " and ": " separators; numbers exact), so the
/// expectation is the server's own rendering of the same text (an admin query).
inline QString storedPayloadText(const TestDatabase &db, const QString &payload)
{
    if (!db.isShop() || db.dialect() != QLatin1String("postgresql"))
        return payload;
    QString quoted = payload;
    quoted.replace(QLatin1Char('\''), QStringLiteral("''"));
    QString error;
    const QStringList v = db.adminQueryColumn(QStringLiteral("SELECT CAST('%1' AS jsonb)::text").arg(quoted), &error);
    if (!error.isEmpty() || v.size() != 1)
        qFatal("jsonb rendering of %s: %s", qPrintable(payload), qPrintable(error));
    return v.first();
}

/// The three --*-db options naming `db`'s URL, preceded by `--config <config>` when
/// `config` is given (a file starting with shapeIniText(db)), else on a shop row by
/// `--config tests/support/shop/shop.ini` (its map sections; the URLs come from the options).
inline QStringList ctlDbArgs(const TestDatabase &db, const QString &config = {})
{
    QStringList out;
    if (!config.isEmpty())
        out << QStringLiteral("--config") << config;
    else if (db.isShop())
        out << QStringLiteral("--config") << shopIniPath();
    out << QStringLiteral("--idempotency-db") << db.url() << QStringLiteral("--intent-db") << db.url()
        << QStringLiteral("--ticket-db") << db.url();
    return out;
}

/// Creates the agents' tables of `db`'s shape as the agents would have (admin SQL), before
/// `triagectl init-schema` adds the console's own: the shop tables on a shop row (shopDdl()),
/// nothing on the default schema (init-schema creates its tables). Returns the error text.
inline QString createAgentTables(const TestDatabase &db)
{
    if (!db.isShop())
        return {};
    for (const QString &statement : shopDdl(db.dialect()))
        if (const QString error = db.adminExec(statement); !error.isEmpty())
            return error;
    return {};
}

/// The record statuses of `keys` exactly as stored (admin SQL on the shape's record table), in key order.
inline QStringList storedRecordStatuses(const TestDatabase &db, const QStringList &keys)
{
    QStringList out;
    for (const QString &k : keys) {
        QString q = k;
        q.replace(QLatin1Char('\''), QStringLiteral("''"));
        out << db.adminQueryColumn(db.isShop() ? QStringLiteral("SELECT state FROM idem_requests WHERE request_key = '%1'").arg(q)
                                               : QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(q))
                   .value(0, QStringLiteral("(no record)"));
    }
    return out;
}

/// The text a test's own config file starts with so that it describes `db`'s shape:
/// shop.ini's [*.map] sections on a shop row, empty on the default schema (triagectl reads
/// one --config file, so a test writing its own appends its sections to this).
inline QByteArray shapeIniText(const TestDatabase &db)
{
    if (!db.isShop())
        return {};
    QFile f(shopIniPath());
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(shopIniPath()));
    return f.readAll() + "\n";
}

} // namespace triage::test
