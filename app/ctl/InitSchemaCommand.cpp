// triagectl init-schema: the tables and indexes in the three databases (DESIGN.md §5).
#include "Command.h"
#include "CommandOptions.h"

#include "Workspace.h"
#include "ConsoleSchema.h"
#include "Schema.h"

#include <QElapsedTimer>

namespace triage::ctl {

namespace {

class InitSchemaCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("init-schema"), QStringLiteral("init-schema"),
            QStringLiteral("Create the tables and indexes in the three databases (idempotent)."),
            QStringLiteral("init-schema [--without-backstop]"),
            QStringLiteral("Create the console's own tables (triage_*) and their indexes in the three databases\n"
                           "(idempotent: CREATE ... IF NOT EXISTS, nothing is dropped) and record the console schema\n"
                           "version in triage_meta. An agents' table that exists is never indexed or altered: the\n"
                           "indexes the queues need on it are printed for the DBA instead (CREATE INDEX CONCURRENTLY\n"
                           "on PostgreSQL). The default agents' tables are created only where they do not exist at\n"
                           "all (demo and test databases); a mapped table ([*.map]) never is. --without-backstop\n"
                           "omits UNIQUE(ticket.idem_key) on a ticket table it creates, for test and demo databases\n"
                           "that must reproduce a breached defence. Exit 4 when a database's console schema is newer\n"
                           "than this build's."),
            {option("without-backstop", QStringLiteral("Omit UNIQUE(ticket.idem_key)."))},
            0, QString(), true, false};
        return s;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        SchemaOptions options;
        options.ticketBackstop = !c.parser.isSet(QStringLiteral("without-backstop"));
        QElapsedTimer timer;
        timer.start();
        const Outcome<SchemaReport> outcome = initSchemaReport(workspace, options).result();
        if (!outcome.ok()) {
            const DbError &e = *outcome.error;
            return c.out.dbFailure(e, e.role == DbRole::Ticket && options.ticketBackstop && e.isUniqueViolation()
                                          ? QStringLiteral("ticket rows already share an idem_key (duplicate-key groups), so the "
                                                           "UNIQUE(ticket.idem_key) backstop cannot be created; settle the duplicates "
                                                           "first, or use --without-backstop")
                                          : QString());
        }
        const SchemaReport &report = *outcome;
        const WorkspaceConfig &config = workspace.config();
        QStringList stores;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
            stores << QStringLiteral("  %1: %2").arg(roleTitle(role), config.profile(role).displayUrl());
        bool ticketCreated = false;
        QStringList notes;
        QVariantList tables;
        for (const SchemaStoreReport &r : report.stores) {
            using A = SchemaStoreReport::AgentsTable;
            const QString section = QStringLiteral("[%1.map]").arg(roleName(r.role));
            QString state;
            switch (r.agentsTable) {
            case A::Created:
                state = QStringLiteral("created");
                ticketCreated = ticketCreated || r.role == DbRole::Ticket;
                break;
            case A::Existing:
            case A::Mapped:
                state = r.agentsTable == A::Existing ? QStringLiteral("existing") : QStringLiteral("mapped");
                notes << QStringLiteral("%1 (%2%3) exists: init-schema runs no CREATE INDEX or ALTER on an agents' table")
                             .arg(r.table, roleTitle(r.role),
                                  r.agentsTable == A::Mapped ? QStringLiteral(", ") + section : QString());
                if (r.wantedIndexes.isEmpty())
                    notes << QStringLiteral("  it has every index the queues need");
                else {
                    notes << QStringLiteral("  indexes the queues need, for the DBA to create:");
                    for (const QString &stmt : r.wantedIndexes)
                        notes << QStringLiteral("    ") + stmt;
                }
                break;
            case A::MappedMissing:
                state = QStringLiteral("missing");
                notes << QStringLiteral("%1 (%2, %3) does not exist: the console never creates a mapped table (check %3 "
                                        "table, then run `triagectl doctor`)")
                             .arg(r.table, roleTitle(r.role), section);
                break;
            }
            QVariantMap t;
            t.insert(QStringLiteral("store"), roleName(r.role));
            t.insert(QStringLiteral("table"), r.table);
            t.insert(QStringLiteral("state"), state);
            t.insert(QStringLiteral("wanted_indexes"), r.wantedIndexes);
            tables << t;
        }
        const QString ticketKey = QStringLiteral("%1.%2").arg(config.schema.tickets.table, config.schema.tickets.key);
        QString backstop;
        if (!ticketCreated)
            backstop = QStringLiteral("UNIQUE(%1) backstop: not touched (the table existed; init-schema never indexes an "
                                      "agents' table that exists)")
                           .arg(ticketKey);
        else
            backstop = options.ticketBackstop
                ? QStringLiteral("UNIQUE(ticket.idem_key) backstop: created if missing")
                : QStringLiteral("UNIQUE(ticket.idem_key) backstop: omitted (--without-backstop; an existing one is not dropped)");
        QString sentence = QStringLiteral("schema ready: %1 CREATE ... IF NOT EXISTS statements run (nothing dropped) in %2 s on\n%3\n%4")
                               .arg(report.statements())
                               .arg(timer.elapsed() / 1000.0, 0, 'f', 2)
                               .arg(stores.join(QLatin1Char('\n')), backstop);
        if (!notes.isEmpty())
            sentence += QLatin1Char('\n') + notes.join(QLatin1Char('\n'));
        c.out.printSummary({QStringLiteral("statements"), QStringLiteral("ticket_backstop"), QStringLiteral("elapsed_seconds"),
                            QStringLiteral("console_schema_version"), QStringLiteral("agents_tables")},
                           {report.statements(), options.ticketBackstop, timer.elapsed() / 1000.0,
                            kConsoleSchemaVersion, tables},
                           sentence);
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeInitSchemaCommand()
{
    return std::make_unique<InitSchemaCommand>();
}

} // namespace triage::ctl
