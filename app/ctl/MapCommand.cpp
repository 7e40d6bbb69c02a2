// triagectl map --suggest: a draft of the [*.map] sections from the three databases'
// catalogs (DESIGN.md §10).
#include "Command.h"
#include "CommandOptions.h"

#include "MapSuggest.h"
#include "Workspace.h"

namespace triage::ctl {

namespace {

class MapCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("map"), QStringLiteral("map --suggest"),
            QStringLiteral("Draft the [*.map] sections of the config from the databases' catalogs."),
            QStringLiteral("map --suggest"),
            QStringLiteral("Inspect the three databases' catalogs and print a draft [idempotency.map], [intent.map]\n"
                           "and [ticket.map] for the tables found (by name and column heuristics: records have a\n"
                           "unique key-like column, a status and an updated time; the intent log task and step\n"
                           "columns; the business table a key column). Each value it cannot decide is marked with a\n"
                           "\"; TODO: …\" line: status spellings (with the DISTINCT values the column holds, at most\n"
                           "20), a time encoding the column type does not settle, a column with no candidate.\n"
                           "Reads only. Review the draft, then check it with `triagectl doctor`. Exit 0."),
            {option("suggest", QStringLiteral("Print a draft mapping (the only form of map)."))},
            0, QString(), false, false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (!c.parser.isSet(QStringLiteral("suggest")))
            return c.out.usage(QStringLiteral("map: give --suggest (usage: triagectl map --suggest)"));
        return ExitOk;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        const Outcome<QString> o = suggestMapping(workspace).result();
        if (!o.ok())
            return c.out.dbFailure(*o.error);
        c.out.print(o->toUtf8());
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeMapCommand()
{
    return std::make_unique<MapCommand>();
}

} // namespace triage::ctl
