// triagectl notify: the console's PostgreSQL NOTIFY triggers for push (DESIGN.md §9 "Push").
#include "Command.h"
#include "CommandOptions.h"

#include "PushTriggers.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

class NotifyCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("notify"), QStringLiteral("notify"),
            QStringLiteral("PostgreSQL push: the console's NOTIFY triggers on the agents' tables."),
            QStringLiteral("notify status  |  notify install --reason TEXT  |  notify uninstall --reason TEXT"),
            QStringLiteral(
                "install: on every PostgreSQL store, a row trigger (triage_console_notify, AFTER INSERT OR\n"
                "UPDATE OR DELETE) on its mapped table that sends a tiny hint \"<store> <id>\" on channel\n"
                "triage_console, never the row. Consoles whose stores carry it hear changes as they commit\n"
                "and re-read (polling stays the base). Cost: NOTIFY takes a global lock at commit, so\n"
                "commits that notify are serialised; on very busy tables measure first. Needs the right to\n"
                "add triggers (the table's owner). uninstall drops the triggers (and the function once no\n"
                "table uses it). Both audited (push.install / push.uninstall), refused while frozen and in\n"
                "read-only mode. status lists each store's trigger. MariaDB and SQLite stores are polled."),
            {option("reason", QStringLiteral("Why (required for install and uninstall; audited)."), QStringLiteral("TEXT"))},
            1, QString(), true, true};
        return s;
    }

    bool dryRun(const QCommandLineParser &parser) const override
    {
        return parser.positionalArguments().value(1) == QLatin1String("status"); // status writes nothing
    }

    int prepare(const CommandContext &c) override
    {
        m_verb = c.args.value(0);
        static const QStringList verbs{QStringLiteral("status"), QStringLiteral("install"), QStringLiteral("uninstall")};
        if (!verbs.contains(m_verb))
            return c.out.usage(QStringLiteral("notify: unknown subcommand \"%1\": use status, install or uninstall").arg(m_verb));
        if (c.args.size() != 1)
            return c.out.usage(QStringLiteral("notify %1: takes no argument").arg(m_verb));
        if (m_verb == QLatin1String("status"))
            return ExitOk;
        m_reason = c.parser.value(QStringLiteral("reason")).trimmed();
        if (m_reason.isEmpty())
            return c.out.usage(QStringLiteral("notify %1: --reason TEXT is required").arg(m_verb));
        return ExitOk;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        QVector<PushTriggerState> states;
        QStringList lines;
        if (m_verb == QLatin1String("status")) {
            const auto read = readPushTriggers(ws).result();
            if (!read.ok())
                return c.out.dbFailure(*read.error);
            states = *read.value;
            for (const PushTriggerState &s : std::as_const(states))
                lines << pushTriggerLine(s, s.installed ? QStringLiteral("installed") : QStringLiteral("not installed"));
        } else {
            const auto done = changePushTriggers(ws, m_verb == QLatin1String("install"), m_reason).result();
            if (!done.ok())
                return c.out.dbFailure(*done.error);
            states = done->stores;
            lines = done->lines;
        }
        if (c.out.format() == Format::Json) {
            c.out.print(QJsonDocument(pushTriggerStatesJson(states)).toJson(QJsonDocument::Indented));
        } else if (c.out.format() == Format::Csv) {
            QByteArray out = "store,table,postgres,installed\n";
            for (const PushTriggerState &s : std::as_const(states))
                out += QStringLiteral("%1,%2,%3,%4\n")
                           .arg(roleName(s.role), s.table, s.postgres ? QStringLiteral("true") : QStringLiteral("false"),
                                s.installed ? QStringLiteral("true") : QStringLiteral("false"))
                           .toUtf8();
            c.out.print(out);
        } else {
            c.out.print((lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
        }
        return ExitOk;
    }

private:
    QString m_verb, m_reason;
};

} // namespace

std::unique_ptr<Command> makeNotifyCommand()
{
    return std::make_unique<NotifyCommand>();
}

} // namespace triage::ctl
