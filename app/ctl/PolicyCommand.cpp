// triagectl policy: the safety policy in the database and the global freeze (DESIGN.md §8
// "Safety policy").
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "ConfigKeys.h"
#include "Policy.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

QJsonObject rowJson(const PolicyRow &r)
{
    return {{QStringLiteral("name"), r.name},           {QStringLiteral("value"), r.value},
            {QStringLiteral("set_by"), r.setBy},        {QStringLiteral("set_at"), r.setAt},
            {QStringLiteral("reason"), r.reason},       {QStringLiteral("schema_version"), r.schemaVersion},
            {QStringLiteral("version"), r.version}};
}

class PolicyCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("policy"), QStringLiteral("policy"),
            QStringLiteral("The safety policy in the database, and the global freeze."),
            QStringLiteral("policy show  |  policy set NAME VALUE --reason TEXT [--expect-version V]  |  "
                           "policy freeze --reason TEXT  |  policy unfreeze --reason TEXT"),
            QStringLiteral(
                "show: every row of triage_policy (name, value, who set it when and why, the console schema\n"
                "version that wrote it, its version); the table format then lists the local INI's own\n"
                "settings (--config), which only make the database's policy stricter. set: NAME is biz.<biz_type>.<setting>, setting one of\n"
                "failed_evidence (upstream|ticket_absent), failed_evidence_max_age (s), money_moving\n"
                "(true|false), reconcile (auto|escalate), reconcile_confirm_delay (s), review_sla_hours (h),\n"
                "four_eyes (none or a list of mark_success,mark_failed,compensate), four_eyes_amount_over\n"
                "(none or CURRENCY:AMOUNT pairs, * for any other currency: e.g. EUR:1000,*:500); or\n"
                "four_eyes_db_users (own|shared), four_eyes_policy (on|off: policy changes under four-eyes);\n"
                "compare-and-set on the row's version (--expect-version V, 0: must not exist yet), audited\n"
                "(policy.set). The local INI may make a setting stricter, never weaker. freeze: every write of\n"
                "every console, CLI and reconcile run is refused until unfreeze (both audited). A reason has\n"
                "at least 10 characters. While four_eyes_policy = on, set is a proposal another operator\n"
                "approves (triagectl approve ID; exit 6); freeze and unfreeze always act at once.\n"
                "Exit 1 for an unknown NAME or a bad VALUE, 3 when the version moved, the freeze is already as\n"
                "asked or the name has an open proposal, 4 for a short reason, while frozen or in read-only mode."),
            {option("reason", QStringLiteral("Why (required, >= 10 characters; audited)."), QStringLiteral("TEXT")),
             option("expect-version", QStringLiteral("The version it must still have."), QStringLiteral("V"))},
            1, QString(), true, true, true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        m_verb = c.args.value(0);
        static const QStringList verbs{QStringLiteral("show"), QStringLiteral("set"), QStringLiteral("freeze"), QStringLiteral("unfreeze")};
        if (!verbs.contains(m_verb))
            return c.out.usage(QStringLiteral("policy: unknown subcommand \"%1\": use show, set, freeze or unfreeze").arg(m_verb));
        const int want = m_verb == QLatin1String("set") ? 3 : 1;
        if (c.args.size() != want)
            return c.out.usage(m_verb == QLatin1String("set") ? QStringLiteral("policy set: give NAME and VALUE")
                                                               : QStringLiteral("policy %1: takes no argument").arg(m_verb));
        if (m_verb == QLatin1String("show"))
            return ExitOk;
        if (!c.parser.isSet(QStringLiteral("reason")))
            return c.out.usage(QStringLiteral("policy %1: --reason TEXT is required").arg(m_verb));
        m_reason = c.parser.value(QStringLiteral("reason"));
        if (m_verb != QLatin1String("set"))
            return ExitOk;
        QString why;
        const std::optional<PolicyName> name = parsePolicyName(c.args.at(1), &why);
        if (!name || !checkPolicyValue(name->setting, c.args.at(2), &why))
            return c.out.usage(why);
        m_name = c.args.at(1);
        m_value = c.args.at(2);
        if (c.parser.isSet(QStringLiteral("expect-version"))) {
            bool ok = false;
            m_expect = c.parser.value(QStringLiteral("expect-version")).toLongLong(&ok);
            if (!ok || *m_expect < 0)
                return c.out.usage(QStringLiteral("--expect-version must be a whole number >= 0"));
        }
        return ExitOk;
    }

    bool dryRun(const QCommandLineParser &parser) const override
    {
        return parser.positionalArguments().value(1) == QLatin1String("show"); // show writes nothing
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        if (m_verb == QLatin1String("show"))
            return show(ws, c);
        // The value being replaced, to say what changed (a set replaces the whole value).
        std::optional<QString> before;
        if (m_verb == QLatin1String("set"))
            if (const Outcome<QVector<PolicyRow>> rows = readPolicy(ws).result(); rows.ok())
                for (const PolicyRow &r : *rows)
                    if (r.name == m_name)
                        before = r.value;
        Outcome<PolicyRow> done = Outcome<PolicyRow>::success({});
        if (m_verb == QLatin1String("set")) {
            // In a workspace that declares its biz_types, another one is most likely a typo: said,
            // not refused (a policy may be set before the biz_type's section is written).
            QString unused;
            const std::optional<PolicyName> parsed = parsePolicyName(m_name, &unused);
            const QStringList declared = ws.config().bizTypes.keys();
            if (parsed && !parsed->bizType.isEmpty() && !declared.isEmpty() && !declared.contains(parsed->bizType))
                c.out.message(QStringLiteral("warning: biz_type \"%1\" is not declared in this workspace (no [biz.%1] section; did "
                                             "you mean %2?)")
                                  .arg(parsed->bizType, nearestWord(parsed->bizType, declared)));
            const Outcome<PolicyChange> change = setPolicy(ws, m_name, m_value, m_reason, m_expect).result();
            if (!change.ok())
                return c.out.dbFailure(*change.error);
            if (change->proposed()) { // four_eyes_policy = on: another operator approves it
                c.out.printSummary({QStringLiteral("proposal"), QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("message")},
                                   {change->proposalId, m_name, m_value, change->message}, change->message);
                return ExitProposed;
            }
            if (!change->message.isEmpty()) { // under four-eyes, the value it already has: nothing proposed
                c.out.printSummary({QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("version"), QStringLiteral("message")},
                                   {change->row.name, change->row.value, change->row.version, change->message}, change->message);
                return ExitOk;
            }
            done = Outcome<PolicyRow>::success(change->row);
        } else {
            done = setFreeze(ws, m_verb == QLatin1String("freeze"), m_reason).result();
        }
        if (!done.ok())
            return c.out.dbFailure(*done.error);
        const PolicyRow &r = *done;
        QString sentence;
        if (m_verb == QLatin1String("set")) {
            sentence = QStringLiteral("policy %1 = %2 (version %3; was %4)").arg(r.name, r.value).arg(r.version).arg(before.value_or(QStringLiteral("unset")));
            // four_eyes is replaced whole: say which actions no longer need a second operator.
            if (before && r.name.endsWith(QLatin1String(".four_eyes"))) {
                const QStringList now = r.value.split(QLatin1Char(','));
                QStringList dropped;
                for (const QString &action : before->split(QLatin1Char(',')))
                    if (action != QLatin1String("none") && !now.contains(action))
                        dropped << action;
                if (!dropped.isEmpty())
                    sentence += QStringLiteral(": %1 no longer need%2 a second operator").arg(dropped.join(QStringLiteral(", ")),
                                                                                         dropped.size() == 1 ? QStringLiteral("s") : QString());
            }
        }
        else if (m_verb == QLatin1String("freeze"))
            sentence = freezeMessage(r);
        else
            sentence = QStringLiteral("Unfrozen by %1 at %2 UTC: %3").arg(r.setBy, utcToSecond(r.setAt), r.reason);
        c.out.printSummary({QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("set_by"), QStringLiteral("set_at"),
                            QStringLiteral("reason"), QStringLiteral("version")},
                           {r.name, r.value, r.setBy, r.setAt, r.reason, r.version}, sentence);
        return ExitOk;
    }

private:
    int show(Workspace &ws, const CommandContext &c)
    {
        const Outcome<QVector<PolicyRow>> rows = readPolicy(ws).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        auto fields = [](const PolicyRow &r) {
            return QStringList{r.name, r.value, r.setBy, utcToSecond(r.setAt), QString::number(r.schemaVersion), QString::number(r.version), r.reason};
        };
        // The local INI's settings bind this operator too (they can only be stricter): listed
        // after the database's rows in every format, marked by their source.
        const WorkspaceConfig config = ws.config();
        QHash<QString, QString> database;
        for (const PolicyRow &r : *rows)
            database.insert(r.name, r.value);
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const PolicyRow &r : *rows) {
                QJsonObject o = rowJson(r);
                o.insert(QStringLiteral("source"), QStringLiteral("database"));
                a.append(o);
            }
            for (auto it = config.iniPolicyRows.cbegin(); it != config.iniPolicyRows.cend(); ++it)
                a.append(QJsonObject{{QStringLiteral("name"), it.key()},
                                     {QStringLiteral("value"), it.value()},
                                     {QStringLiteral("source"), QStringLiteral("local")},
                                     {QStringLiteral("file"), config.sourceFile},
                                     {QStringLiteral("database_value"),
                                      database.contains(it.key()) ? QJsonValue(database.value(it.key())) : QJsonValue(QJsonValue::Null)}});
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record({QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("set_by"),
                                                QStringLiteral("set_at"), QStringLiteral("schema_version"), QStringLiteral("version"),
                                                QStringLiteral("reason"), QStringLiteral("source")});
            for (const PolicyRow &r : *rows) {
                QStringList f = fields(r);
                f[3] = r.setAt; // full precision, as json
                out += CsvWriter::record(f << QStringLiteral("database"));
            }
            for (auto it = config.iniPolicyRows.cbegin(); it != config.iniPolicyRows.cend(); ++it)
                out += CsvWriter::record({it.key(), it.value(), QString(), QString(), QString(), QString(),
                                          QStringLiteral("local setting in %1 (the stricter of it and the database's applies)").arg(config.sourceFile),
                                          QStringLiteral("local")});
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("NAME"), QStringLiteral("VALUE"), QStringLiteral("SET_BY"), QStringLiteral("SET_AT (UTC)"),
                         QStringLiteral("SCHEMA"), QStringLiteral("VERSION"), QStringLiteral("REASON")});
            for (const PolicyRow &r : *rows)
                t.addRow(fields(r));
            QByteArray out = t.render() + countText(rows->size(), QStringLiteral("setting")).toUtf8() + '\n';
            // The local INI's settings are not rows of triage_policy, yet they bind this
            // operator: shown so that a stricter local four_eyes is never a surprise.
            if (!config.iniPolicyRows.isEmpty()) {
                TextTable local({QStringLiteral("NAME"), QStringLiteral("LOCAL"), QStringLiteral("DATABASE")});
                for (auto it = config.iniPolicyRows.cbegin(); it != config.iniPolicyRows.cend(); ++it)
                    local.addRow({it.key(), it.value(), database.value(it.key(), QStringLiteral("(not set)"))});
                out += QStringLiteral("\nLocal settings in %1 (this operator's console and CLI only; where both are set, the "
                                      "stricter of the two applies: the local file can tighten a rule, never loosen it):\n")
                           .arg(config.sourceFile)
                           .toUtf8()
                    + local.render();
            }
            c.out.print(out);
            break;
        }
        }
        return ExitOk;
    }

    QString m_verb, m_name, m_value, m_reason;
    std::optional<qint64> m_expect;
};

} // namespace

std::unique_ptr<Command> makePolicyCommand()
{
    return std::make_unique<PolicyCommand>();
}

} // namespace triage::ctl
