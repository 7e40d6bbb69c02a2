#pragma once

// Helpers shared by tests/models and tests/views: waiting on futures without blocking the
// event loop, and filling a TestDatabase with rows whose times are relative to the
// database's own clock.

#include "ServerTime.h"
#include "TestDatabases.h"
#include "Workspace.h"
#include "DemoWorkspace.h"
#include "Schema.h"

#include <QAbstractItemModel>
#include <QFuture>
#include <QTest>

namespace triage::test {

/// Every row of a table model, its cells' DisplayRole text joined by " | ".
inline QStringList tableRows(const QAbstractItemModel &model)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data().toString();
        out << cells.join(QStringLiteral(" | "));
    }
    return out;
}

/// Spins the event loop until `future` has finished (at most `ms`), then returns its result.
/// Returns a default-constructed T (and the caller's QVERIFY on it fails) on timeout.
template <typename T>
T awaitResult(QFuture<T> future, int ms = 60000)
{
    if (!QTest::qWaitFor([&] { return future.isFinished(); }, ms))
        return T{};
    return future.result();
}

/// Creates the schema (without the ticket backstop when `backstop` is false) through a
/// Workspace on `db`. Returns an error message, empty on success.
inline QString initSchema(Workspace &ws, bool backstop = true)
{
    SchemaOptions options;
    options.ticketBackstop = backstop;
    const auto o = awaitResult(initSchema(ws, options));
    if (!o.ok())
        return o.error ? o.error->message : QStringLiteral("timed out creating the schema");
    return {};
}

/// Creates the schema without the backstop and seeds the demo set (DemoData). Returns an
/// error message, empty on success.
inline QString seedDemo(Workspace &ws)
{
    if (const QString e = initSchema(ws, false); !e.isEmpty())
        return e;
    const auto s = awaitResult(seedWorkspace(ws, SeedOptions{}));
    if (!s.ok())
        return s.error ? s.error->message : QStringLiteral("timed out seeding");
    return {};
}

/// A TestDatabase configuration with the demo's biz_type settings.
inline WorkspaceConfig demoConfig(const TestDatabase &db)
{
    WorkspaceConfig c = db.config();
    c.bizTypes = demoBizTypes();
    return c;
}

} // namespace triage::test
