// triagectl claim: take, renew or take over the claim on a key or an escalation (DESIGN.md
// §8 "Claims"), so two operators never work on one case at once.
#include "ClaimCli.h"
#include "Command.h"
#include "CommandOptions.h"

#include "EscalationService.h"
#include "KeyDetail.h"
#include "Workspace.h"

namespace triage::ctl {

namespace {

class ClaimCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("claim"), QStringLiteral("claim KEY"),
            QStringLiteral("Claim a key (or --escalation ID) for a while, so nobody else acts on it."),
            QStringLiteral("claim KEY [--ttl S] [--takeover --reason TEXT]  |  claim --escalation ID [--ttl S] [--takeover --reason TEXT]"),
            QStringLiteral(
                "Takes the claim on KEY (or on escalation ID) for --ttl seconds (default 1800, at most 86400) as\n"
                "--operator, by compare-and-set in triage_claim, so two operators never hold it at once.\n"
                "Claiming again what you hold renews it (the expiry moves, the claim's age stays). A claim\n"
                "someone else holds is refused (exit 3, naming them and until when) unless --takeover with a\n"
                "--reason of at least 10 characters (exit 4 when shorter). An expired claim is anyone's.\n"
                "Every take, renewal and takeover is audited in triage_audit (claim.take, claim.takeover;\n"
                "idem_key the key, or escalation:ID). Times are the database's clock. Refused in read-only\n"
                "mode (exit 4)."),
            {option("ttl", QStringLiteral("How long the claim lasts, in seconds (default 1800, at most 86400)."), QStringLiteral("S")),
             option("takeover", QStringLiteral("Take over a claim someone else holds (needs --reason).")),
             option("reason", QStringLiteral("takeover: why (>= 10 characters; audited)."), QStringLiteral("TEXT")),
             option("escalation", QStringLiteral("Claim escalation ID instead of a KEY."), QStringLiteral("ID"))},
            -1, QStringLiteral("escalation"), true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (!readClaimSubject(c, QStringLiteral("claim"), &m_scope, &m_subject))
            return ExitUsage;
        m_ttl = kClaimDefaultTtlS;
        if (c.parser.isSet(QStringLiteral("ttl"))) {
            bool ok = false;
            m_ttl = c.parser.value(QStringLiteral("ttl")).trimmed().toInt(&ok);
            if (!ok || m_ttl < 1 || m_ttl > kClaimMaxTtlS)
                return c.out.usage(QStringLiteral("claim: --ttl \"%1\": seconds from 1 to %2")
                                       .arg(c.parser.value(QStringLiteral("ttl")))
                                       .arg(kClaimMaxTtlS));
        }
        const bool takeover = c.parser.isSet(QStringLiteral("takeover"));
        if (takeover != c.parser.isSet(QStringLiteral("reason")))
            return c.out.usage(takeover ? QStringLiteral("claim --takeover needs --reason TEXT (>= 10 characters)")
                                        : QStringLiteral("claim: --reason goes with --takeover"));
        // Empty after trimming is still a takeover, refused by the store (audited).
        m_reason = takeover ? c.parser.value(QStringLiteral("reason")) : QString();
        if (takeover && m_reason.isEmpty())
            m_reason = QStringLiteral(" ");
        return ExitOk;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        // A claim names something that exists (DESIGN.md §8): nothing written or audited otherwise.
        if (m_scope == ClaimScope::Escalation) {
            const auto e = escalationById(ws, m_subject.toLongLong()).result();
            if (!e.ok())
                return c.out.dbFailure(*e.error);
            if (!*e) {
                c.out.message(QStringLiteral("no escalation %1").arg(m_subject));
                return ExitUsage;
            }
        } else {
            const KeyDetail d = loadKeyDetail(ws, m_subject).result();
            qint64 escalations = 0;
            if (unknownKeyText(d, 0)) {
                // Only escalations may name it (a purged record); a database without the
                // escalation tables fails here as any claim does there (exit 1).
                EscalationQuery q;
                q.openOnly = false;
                q.idemKey = m_subject;
                const auto n = countEscalations(ws, q).result();
                if (!n.ok())
                    return c.out.dbFailure(*n.error);
                escalations = *n;
            }
            if (const std::optional<QString> unknown = unknownKeyText(d, escalations)) {
                c.out.message(*unknown + QStringLiteral(": nothing claimed"));
                return ExitUsage;
            }
        }
        return reportClaim(c, takeClaim(ws, m_scope, m_subject, m_ttl, m_reason).result());
    }

private:
    ClaimScope m_scope = ClaimScope::Key;
    QString m_subject;
    int m_ttl = kClaimDefaultTtlS;
    QString m_reason;
};

} // namespace

std::unique_ptr<Command> makeClaimCommand()
{
    return std::make_unique<ClaimCommand>();
}

} // namespace triage::ctl
