#include "Schema.h"

#include "Log.h"

#include <QFile>
#include <QRegularExpression>

namespace triage {

QStringList schemaStatements(Dialect dialect, DbRole role, const SchemaOptions &options)
{
    // Each role's agents' tables, then the console-owned tables kept in that database
    // (triage_audit beside the idempotency records, triage_compensation beside the intent log).
    QStringList files = {roleName(role)};
    if (role == DbRole::Idempotency)
        files << QStringLiteral("audit");
    if (role == DbRole::Intent)
        files << QStringLiteral("compensation");
    QStringList lines;
    for (const QString &file : files) {
        QFile f(QStringLiteral(":/schema/%1/%2.sql").arg(dialectName(dialect), file));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        lines << QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    }
    QStringList statements;
    QString current;
    QString tag;
    for (const QString &line : lines) {
        const QString trimmed = line.trimmed();
        if (current.isEmpty() && trimmed.startsWith(QLatin1String("-- @"))) {
            tag = trimmed.mid(4);
            continue;
        }
        if (current.isEmpty() && (trimmed.isEmpty() || trimmed.startsWith(QLatin1String("--"))))
            continue;
        current += line + QLatin1Char('\n');
        if (trimmed.endsWith(QLatin1Char(';'))) {
            QString stmt = current.trimmed();
            stmt.chop(1);
            const bool keep = tag.isEmpty() || (tag == QLatin1String("backstop") && options.ticketBackstop)
                || (tag == QLatin1String("no-backstop") && !options.ticketBackstop);
            if (keep)
                statements << stmt;
            current.clear();
            tag.clear();
        }
    }
    return statements;
}

QStringList createSchema(DbSession &session, const SchemaOptions &options)
{
    const QStringList statements = schemaStatements(session.dialect().kind(), session.role(), options);
    if (statements.isEmpty())
        throw DbException({session.role(), DbError::Kind::Config, QStringLiteral("no schema resource for %1 / %2")
                                                                      .arg(dialectName(session.dialect().kind()), roleName(session.role())),
                           {}});
    for (QString stmt : statements) {
        if (session.dialect().kind() == Dialect::MySql && stmt.startsWith(QLatin1String("CREATE"))
            && stmt.contains(QLatin1String(" INDEX IF NOT EXISTS "))) {
            // MySQL 8 lacks CREATE INDEX IF NOT EXISTS (MariaDB has it): run it plain and
            // treat "duplicate key name" (1061) as already done.
            stmt.replace(QLatin1String(" INDEX IF NOT EXISTS "), QLatin1String(" INDEX "));
            try {
                session.execDirect(stmt);
            } catch (const DbException &e) {
                if (e.error.nativeCode != QLatin1String("1061"))
                    throw;
            }
            continue;
        }
        session.execDirect(stmt);
    }
    logger("backend.sql")->info("schema for the {} is in place ({} statements)", roleTitle(session.role()), statements.size());
    return statements;
}

} // namespace triage
