// triagectl compensations: the compensations with their attempt history (DESIGN.md §5).
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "Compensation.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

class CompensationsCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("compensations"), QStringLiteral("compensations"),
            QStringLiteral("The compensations and their history."),
            QStringLiteral("compensations [--status S] [--key KEY]"),
            QStringLiteral("Compensations (INTENT, SUCCEEDED, FAILED, UNKNOWN), oldest first; json adds every attempt."),
            {option("status", QStringLiteral("Only this status (INTENT, SUCCEEDED, FAILED or UNKNOWN)."), QStringLiteral("S")),
             option("key", QStringLiteral("Only the compensations of this idempotency key."), QStringLiteral("KEY"))},
            0, QString(), false};
        return s;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        CompensationQuery q;
        q.limit = c.limit;
        q.sourceKey = c.parser.value(QStringLiteral("key"));
        if (c.parser.isSet(QStringLiteral("status"))) {
            q.status = compensationStatusFromName(c.parser.value(QStringLiteral("status")));
            if (!q.status)
                return c.out.usage(QStringLiteral("--status: INTENT, SUCCEEDED, FAILED or UNKNOWN"));
        }
        CompensationRunner runner(workspace);
        const auto rows = runner.list(q).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const CompensationRow &r : *rows) {
                QJsonObject o = json_export::compensation(r);
                const auto h = runner.history(r.compKey).result();
                QJsonArray ha;
                if (h.ok())
                    for (const CompensationAttemptRow &x : *h)
                        ha.append(json_export::compensationAttempt(x));
                o.insert(QStringLiteral("history"), ha);
                a.append(o);
            }
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record({QStringLiteral("comp_key"), QStringLiteral("source_key"), QStringLiteral("action"),
                                                QStringLiteral("target"), QStringLiteral("status"), QStringLiteral("attempts"),
                                                QStringLiteral("operator"), QStringLiteral("created_at"), QStringLiteral("updated_at"),
                                                QStringLiteral("last_error")});
            for (const CompensationRow &r : *rows)
                out += CsvWriter::record({r.compKey, r.sourceKey, r.action, r.target, r.status, QString::number(r.attempts), r.operatorName,
                                          r.createdAt, r.updatedAt, r.lastError.value_or(QString())});
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("COMP_KEY"), QStringLiteral("STATUS"), QStringLiteral("CALLS"), QStringLiteral("TARGET"),
                         QStringLiteral("SOURCE KEY"), QStringLiteral("OPERATOR"), QStringLiteral("UPDATED (UTC)")});
            for (const CompensationRow &r : *rows)
                t.addRow({r.compKey, r.status, QString::number(r.attempts), r.target, r.sourceKey, r.operatorName, r.updatedAt});
            QByteArray out = t.render();
            out += (countText(rows->size(), QStringLiteral("compensation"), QStringLiteral("compensations")) + QLatin1Char('\n')).toUtf8();
            c.out.print(out);
            break;
        }
        }
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeCompensationsCommand()
{
    return std::make_unique<CompensationsCommand>();
}

} // namespace triage::ctl
