// triagectl release: give back a claim you hold (DESIGN.md §8 "Claims").
#include "ClaimCli.h"
#include "Command.h"
#include "CommandOptions.h"

#include "EscalationService.h"
#include "Workspace.h"

namespace triage::ctl {

namespace {

class ReleaseCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("release"), QStringLiteral("release KEY"),
            QStringLiteral("Release your claim on a key (or --escalation ID)."),
            QStringLiteral("release KEY  |  release --escalation ID"),
            QStringLiteral(
                "Releases the claim on KEY (or on escalation ID) that --operator holds, expired or not,\n"
                "audited in triage_audit (claim.release). A claim someone else holds, or none, is not\n"
                "released (exit 3, nothing written). Refused in read-only mode (exit 4)."),
            {option("escalation", QStringLiteral("Release the claim on escalation ID instead of a KEY."), QStringLiteral("ID"))},
            -1, QStringLiteral("escalation"), true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        return readClaimSubject(c, QStringLiteral("release"), &m_scope, &m_subject) ? ExitOk : ExitUsage;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        return reportClaim(c, releaseClaim(ws, m_scope, m_subject).result());
    }

private:
    ClaimScope m_scope = ClaimScope::Key;
    QString m_subject;
};

} // namespace

std::unique_ptr<Command> makeReleaseCommand()
{
    return std::make_unique<ReleaseCommand>();
}

} // namespace triage::ctl
