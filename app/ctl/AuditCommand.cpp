// triagectl audit: the audit trail of operator actions (triage_audit).
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "Mark.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace triage::ctl {

namespace {

class AuditCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("audit"), QStringLiteral("audit"),
            QStringLiteral("The audit trail of operator actions (triage_audit)."),
            QStringLiteral("audit [--key KEY] [--since TIME]"),
            QStringLiteral("The audit trail of operator actions (triage_audit), oldest first, at most --limit rows."),
            {option("key", QStringLiteral("Only the rows of this idempotency key."), QStringLiteral("KEY")),
             option("since", QStringLiteral("Rows at or after TIME (ISO-8601 UTC or a date)."), QStringLiteral("TIME"))},
            0, QString(), false};
        return s;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        AuditQuery q;
        q.idemKey = c.parser.value(QStringLiteral("key"));
        q.limit = c.limit > 0 ? c.limit + 1 : 0; // one more: whether --limit cut the trail
        if (!readTimeOption(c, QStringLiteral("since"), &q.since))
            return ExitUsage;
        auto rows = readAudit(workspace, q).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        const bool cut = c.limit > 0 && rows->size() > c.limit;
        if (cut)
            rows.value->resize(c.limit);
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const AuditEntry &e : *rows)
                a.append(json_export::auditEntry(e));
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            const QStringList header = {QStringLiteral("id"), QStringLiteral("at"), QStringLiteral("operator"), QStringLiteral("action"),
                                        QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("from_state"),
                                        QStringLiteral("to_state"), QStringLiteral("reason"), QStringLiteral("evidence"),
                                        QStringLiteral("detail")};
            QByteArray out = CsvWriter::record(header);
            for (const AuditEntry &e : *rows)
                out += CsvWriter::record({QString::number(e.id), e.at, e.operatorName, e.action, e.idemKey, e.outcome, e.fromState,
                                          e.toState, e.reason, e.evidence, e.detail});
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable table({QStringLiteral("AT (UTC)"), QStringLiteral("OPERATOR"), QStringLiteral("ACTION"), QStringLiteral("OUTCOME"),
                             QStringLiteral("IDEM_KEY"), QStringLiteral("REASON")});
            for (const AuditEntry &e : *rows)
                table.addRow({e.at, e.operatorName, e.action, e.outcome, e.idemKey, e.reason});
            QByteArray out = table.render();
            out += QStringLiteral("%1 audit row(s)%2\n")
                       .arg(rows->size())
                       .arg(cut ? QStringLiteral("; --limit reached: the oldest shown (--since TIME or --limit 0 for later rows)") : QString())
                       .toUtf8();
            c.out.print(out);
            break;
        }
        }
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeAuditCommand()
{
    return std::make_unique<AuditCommand>();
}

} // namespace triage::ctl
