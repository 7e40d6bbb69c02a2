// triagectl init-schema: the tables and indexes in the three databases (DESIGN.md §5).
#include "Command.h"
#include "CommandOptions.h"

#include "Workspace.h"
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
            QStringLiteral("Create the tables and indexes in the three databases (idempotent:\n"
                           "CREATE ... IF NOT EXISTS, nothing is dropped). --without-backstop omits\n"
                           "UNIQUE(ticket.idem_key), for test and demo databases that must\n"
                           "reproduce a breached defence."),
            {option("without-backstop", QStringLiteral("Omit UNIQUE(ticket.idem_key)."))},
            0, QString(), true};
        return s;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        SchemaOptions options;
        options.ticketBackstop = !c.parser.isSet(QStringLiteral("without-backstop"));
        QElapsedTimer timer;
        timer.start();
        const Outcome<int> outcome = initSchema(workspace, options).result();
        if (!outcome.ok()) {
            const DbError &e = *outcome.error;
            return c.out.dbFailure(e, e.role == DbRole::Ticket && options.ticketBackstop && e.isUniqueViolation()
                                          ? QStringLiteral("ticket rows already share an idem_key (duplicate-key groups), so the "
                                                           "UNIQUE(ticket.idem_key) backstop cannot be created; settle the duplicates "
                                                           "first, or use --without-backstop")
                                          : QString());
        }
        QStringList stores;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
            stores << QStringLiteral("  %1: %2").arg(roleTitle(role), workspace.config().profile(role).displayUrl());
        const QString backstop = options.ticketBackstop
            ? QStringLiteral("UNIQUE(ticket.idem_key) backstop: created if missing")
            : QStringLiteral("UNIQUE(ticket.idem_key) backstop: omitted (--without-backstop; an existing one is not dropped)");
        c.out.printSummary({QStringLiteral("statements"), QStringLiteral("ticket_backstop"), QStringLiteral("elapsed_seconds")},
                           {*outcome, options.ticketBackstop, timer.elapsed() / 1000.0},
                           QStringLiteral("schema ready: %1 CREATE ... IF NOT EXISTS statements run (nothing dropped) in %2 s on\n%3\n%4")
                               .arg(*outcome)
                               .arg(timer.elapsed() / 1000.0, 0, 'f', 2)
                               .arg(stores.join(QLatin1Char('\n')), backstop));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeInitSchemaCommand()
{
    return std::make_unique<InitSchemaCommand>();
}

} // namespace triage::ctl
