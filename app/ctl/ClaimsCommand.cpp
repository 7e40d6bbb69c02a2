// triagectl claims: who holds what (DESIGN.md §8 "Claims").
#include "ClaimCli.h"
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "EscalationService.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace triage::ctl {

namespace {

class ClaimsCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("claims"), QStringLiteral("claims"),
            QStringLiteral("The claims operators hold now (--all: expired ones too)."),
            QStringLiteral("claims [--all]"),
            QStringLiteral(
                "Lists the claims in triage_claim, newest first: keys, escalations and the reconcile run's\n"
                "lease, with their holder, since when and until when (the database's clock). Expired claims\n"
                "are left out unless --all. At most --limit rows."),
            {option("all", QStringLiteral("Expired claims too."))},
            0, QString(), false};
        return s;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        const auto rows = listClaims(ws, c.parser.isSet(QStringLiteral("all"))).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        QVector<Claim> claims = *rows;
        if (c.limit > 0 && claims.size() > c.limit)
            claims.resize(c.limit);
        auto fields = [](const Claim &k) {
            return QStringList{claimScopeName(k.scope), k.subject, k.holder, k.claimedAt, k.expiresAt,
                               k.expired ? QStringLiteral("expired") : QStringLiteral("active"), claimedByText(k), k.reason};
        };
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const Claim &k : claims)
                a.append(claimJson(k));
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record({QStringLiteral("scope"), QStringLiteral("subject"), QStringLiteral("holder"),
                                                QStringLiteral("claimed_at"), QStringLiteral("expires_at"), QStringLiteral("state"),
                                                QStringLiteral("claimed"), QStringLiteral("reason")});
            for (const Claim &k : claims)
                out += CsvWriter::record(fields(k));
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("SCOPE"), QStringLiteral("SUBJECT"), QStringLiteral("HOLDER"), QStringLiteral("CLAIMED_AT (UTC)"),
                         QStringLiteral("EXPIRES_AT (UTC)"), QStringLiteral("STATE"), QStringLiteral("CLAIMED"), QStringLiteral("REASON")});
            for (const Claim &k : claims)
                t.addRow(fields(k));
            c.out.print(t.render() + countText(claims.size(), QStringLiteral("claim")).toUtf8() + '\n');
            break;
        }
        }
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeClaimsCommand()
{
    return std::make_unique<ClaimsCommand>();
}

} // namespace triage::ctl
