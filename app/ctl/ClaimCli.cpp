// What claim, release and claims print (DESIGN.md §8 "Claims").
#include "ClaimCli.h"

#include "CommandOptions.h"
#include "TextTable.h"

#include "Workspace.h"

#include <QJsonDocument>

namespace triage::ctl {

QJsonObject claimJson(const Claim &c)
{
    return {{QStringLiteral("scope"), claimScopeName(c.scope)},
            {QStringLiteral("subject"), c.subject},
            {QStringLiteral("holder"), c.holder},
            {QStringLiteral("claimed_at"), c.claimedAt},
            {QStringLiteral("expires_at"), c.expiresAt},
            {QStringLiteral("expired"), c.expired},
            {QStringLiteral("age_s"), c.ageS},
            {QStringLiteral("reason"), c.reason.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(c.reason)},
            {QStringLiteral("version"), c.version},
            {QStringLiteral("claimed"), claimedByText(c)}};
}

int reportClaim(const CommandContext &c, const Outcome<ClaimResult> &out)
{
    if (!out.ok())
        return c.out.dbFailure(*out.error);
    const ClaimResult &r = *out;
    int code = ExitOk;
    switch (r.kind) {
    case ClaimResult::Kind::Taken:
    case ClaimResult::Kind::Renewed:
    case ClaimResult::Kind::TakenOver:
    case ClaimResult::Kind::Released: break;
    case ClaimResult::Kind::HeldByOther:
    case ClaimResult::Kind::NotHeld: code = ExitConflict; break;
    case ClaimResult::Kind::Refused: code = ExitRefused; break;
    }
    if (c.out.format() == Format::Json) {
        const QJsonObject o{{QStringLiteral("outcome"), claimKindName(r.kind)},
                            {QStringLiteral("message"), r.message},
                            {QStringLiteral("claim"), r.claim ? QJsonValue(claimJson(*r.claim)) : QJsonValue(QJsonValue::Null)}};
        c.out.print(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
        if (code != ExitOk)
            c.out.message(r.message);
    } else if (code == ExitOk) {
        c.out.print((TextTable::oneLine(r.message) + QLatin1Char('\n')).toUtf8());
    } else {
        c.out.message(r.message);
    }
    return code;
}

bool readClaimSubject(const CommandContext &c, const QString &command, ClaimScope *scope, QString *subject)
{
    if (c.parser.isSet(QStringLiteral("escalation"))) {
        bool ok = false;
        const qint64 id = c.parser.value(QStringLiteral("escalation")).trimmed().toLongLong(&ok);
        if (!ok || id <= 0) {
            c.out.usage(QStringLiteral("%1: --escalation \"%2\" is not an escalation ID").arg(command, c.parser.value(QStringLiteral("escalation"))));
            return false;
        }
        *scope = ClaimScope::Escalation;
        *subject = QString::number(id);
        return true;
    }
    *scope = ClaimScope::Key;
    *subject = c.args.value(0);
    if (subject->isEmpty()) { // no KEY at all
        c.out.usage(QStringLiteral("%1: a KEY of 1 to 255 characters").arg(command));
        return false;
    }
    return keyArgumentOk(c, command, false);
}

QCommandLineOption despiteClaimOption()
{
    return option("despite-claim",
                  QStringLiteral("Act although another operator's live claim holds the key or escalation (audited in the reason)."));
}

std::optional<QHash<QString, ClaimBlock>> readClaimBlocks(Workspace &ws, const CommandContext &c, const QStringList &keys,
                                                          std::optional<qint64> escalationId, int *failureCode)
{
    const auto blocks = claimBlocks(ws, keys, escalationId, ws.config().operatorName).result();
    if (!blocks.ok()) {
        *failureCode = c.out.dbFailure(*blocks.error);
        return std::nullopt;
    }
    return *blocks;
}

QString claimRefusalText(const ClaimBlock &block, const QString &done)
{
    return QStringLiteral("%1: nothing %2 (--despite-claim acts anyway, audited)").arg(block.message(), done);
}

int checkClaimOnKey(Workspace &ws, const CommandContext &c, const QString &key, const QString &done, QString *reason)
{
    int failure = ExitOk;
    const auto blocks = readClaimBlocks(ws, c, {key}, std::nullopt, &failure);
    if (!blocks)
        return failure;
    if (!blocks->contains(key))
        return ExitOk;
    if (!c.parser.isSet(QStringLiteral("despite-claim"))) {
        c.out.message(claimRefusalText(blocks->value(key), done));
        return ExitConflict;
    }
    *reason += blocks->value(key).despiteNote();
    return ExitOk;
}

} // namespace triage::ctl
