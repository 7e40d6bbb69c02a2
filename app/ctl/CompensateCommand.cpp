// triagectl compensate: one idempotent compensation of a side effect, or the resume of one
// (DESIGN.md §1 "Compensation is a side effect too", §2, §5).
#include "DemoWorkspace.h"
#include "ClaimCli.h"
#include "CompensateCli.h"
#include "Command.h"
#include "CommandOptions.h"

#include "JsonExport.h"

#include "Compensation.h"
#include "TextEscape.h"
#include "UpstreamSimulatorProcess.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

/// Exit code of a compensation outcome (DESIGN.md §5).
int compensationExitCode(const CompensationOutcome &o)
{
    using K = CompensationOutcome::Kind;
    switch (o.kind) {
    case K::Planned:
    case K::Succeeded: return ExitOk;
    case K::Existing: return ExitConflict;
    case K::Unknown: return ExitUpstream;
    case K::Failed: return ExitRefused;
    case K::Refused: return o.configError ? ExitUsage : ExitRefused;
    case K::Error: return o.dbError ? exitCodeFor(*o.dbError) : ExitDatabase;
    case K::NotFound: return ExitUsage;
    case K::Proposed: return ExitProposed;
    }
    return ExitDatabase;
}

} // namespace

int reportCompensation(const CommandContext &c, const CompensationOutcome &o)
{
    if (o.kind == CompensationOutcome::Kind::NotFound && c.out.format() != Format::Json) {
        c.out.message(o.message);
        return compensationExitCode(o);
    }
    if (c.out.format() == Format::Json) {
        QJsonObject j{{QStringLiteral("outcome"), compensationOutcomeName(o.kind)},
                      {QStringLiteral("comp_key"), o.compKey},
                      {QStringLiteral("message"), o.message}};
        if (o.proposalId)
            j.insert(QStringLiteral("proposal"), o.proposalId);
        if (!o.request.url.isEmpty())
            j.insert(QStringLiteral("request"), QJsonDocument::fromJson(o.request.toJson()).object());
        if (o.row)
            j.insert(QStringLiteral("compensation"), json_export::compensation(*o.row));
        QJsonArray h;
        for (const CompensationAttemptRow &a : o.history)
            h.append(json_export::compensationAttempt(a));
        j.insert(QStringLiteral("attempts"), h);
        if (o.ticketAfter)
            j.insert(QStringLiteral("ticket_status_after"), o.ticketAfter->status ? QJsonValue(*o.ticketAfter->status) : QJsonValue(QJsonValue::Null));
        c.out.print(QJsonDocument(j).toJson(QJsonDocument::Indented));
    } else {
        QByteArray out;
        auto line = [&](const QString &s) { out += (s + QLatin1Char('\n')).toUtf8(); };
        line(QStringLiteral("outcome:    %1").arg(compensationOutcomeName(o.kind)));
        if (o.proposalId)
            line(QStringLiteral("proposal:   %1").arg(o.proposalId));
        if (!o.compKey.isEmpty())
            line(QStringLiteral("comp_key:   %1").arg(o.compKey));
        if (!o.request.url.isEmpty()) {
            // A refused, planned or proposed compensation sends nothing: say so next to the request.
            const bool unsent = o.kind == CompensationOutcome::Kind::Refused || o.kind == CompensationOutcome::Kind::Planned
                             || o.kind == CompensationOutcome::Kind::Proposed;
            line(QStringLiteral("request:    %1 %2 (X-Idempotency-Key: %3)%4")
                     .arg(QString::fromLatin1(o.request.method), o.request.url, o.compKey,
                          unsent ? QStringLiteral(" — not sent") : QString()));
        }
        if (o.kind == CompensationOutcome::Kind::Refused)
            line(QStringLiteral("reason:     %1").arg(o.message));
        if (o.kind == CompensationOutcome::Kind::Planned)
            line(QStringLiteral("plan:       %1").arg(o.message)); // with "— four-eyes (<rule>): a real run proposes it" where it would

        if (o.row)
            line(QStringLiteral("status:     %1 after %2").arg(o.row->status, countText(o.row->attempts, QStringLiteral("call"), QStringLiteral("calls"))));
        for (const CompensationAttemptRow &a : o.history)
            line(QStringLiteral("attempt:    %1 %2 %3 %4").arg(a.at, a.kind, a.classification,
                                                               a.httpStatus ? QStringLiteral("HTTP %1").arg(*a.httpStatus)
                                                                            : a.error.value_or(QString())));
        if (o.ticketAfter)
            line(QStringLiteral("ticket:     #%1 now %2").arg(o.ticketAfter->id.text()).arg(o.ticketAfter->status.value_or(QStringLiteral("NULL"))));
        c.out.print(out);
    }
    if (o.kind != CompensationOutcome::Kind::Succeeded && o.kind != CompensationOutcome::Kind::Planned)
        c.out.message(o.message);
    return compensationExitCode(o);
}

std::optional<CompensationConfigs> compensationsFor(Workspace &workspace, Output &out,
                                                    std::unique_ptr<UpstreamSimulatorProcess> *simulator)
{
    if (!workspace.config().isDemo)
        return workspace.config().compensations;
    // The demo's compensations go to the upstream simulator, started for this run.
    *simulator = startDemoSimulator(out);
    if (!*simulator)
        return std::nullopt;
    return demoCompensations((*simulator)->baseUrl().toString());
}

namespace {

class CompensateCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("compensate"), QStringLiteral("compensate KEY"),
            QStringLiteral("Undo one side effect of a key through the upstream's API (idempotent, audited)."),
            QStringLiteral("compensate KEY --action A --target TICKET_ID --reason TEXT [--dry-run] [--override]  |  compensate --resume COMP_KEY"),
            QStringLiteral("Compensate one side effect of KEY (e.g. cancel_ticket of an extra ticket of a duplicate group)\n"
                           "through the biz_type's compensation_<action>_* endpoint, with the deterministic key\n"
                           "comp:<action>:<ticket>:<KEY> (hashed to 64 characters) as X-Idempotency-Key. The intent is\n"
                           "written to triage_compensation before the call; a timeout or unclear reply leaves it UNKNOWN\n"
                           "(exit 5), confirmed by the confirmation query; --resume re-sends the stored request with the\n"
                           "same key. The canonical ticket (the one the SUCCESS snapshot names, else the earliest live\n"
                           "one; DESIGN.md §6) is never a target, also on --resume; a group whose tickets' business\n"
                           "payloads differ (key reuse) or whose SUCCESS snapshot names a CANCELLED or missing ticket\n"
                           "needs --override with a reason of >= 20 characters. Every outcome, refusals included, is\n"
                           "audited. A KEY another operator's live claim holds (on the key or one of its open\n"
                           "escalations; DESIGN.md §8) is not compensated (exit 3, naming the holder) unless\n"
                           "--despite-claim, noted in the audited reason. Exit: 0 succeeded, 1 unknown COMP_KEY,\n"
                           "3 the compensation already exists or another's claim holds the key, 4 refused, 5 UNKNOWN,\n"
                           "6 proposed: the policy lists compensate under four_eyes, so nothing is written or sent until\n"
                           "another operator approves it (triagectl approve ID)."),
            {option("action", QStringLiteral("The action (compensation_<action>_url), e.g. cancel_ticket."), QStringLiteral("A")),
             option("target", QStringLiteral("The ticket id to compensate."), QStringLiteral("ID")),
             option("reason", QStringLiteral("Why (required; audited)."), QStringLiteral("TEXT")),
             option("dry-run", QStringLiteral("Print the plan and the key; call nothing.")),
             option("resume", QStringLiteral("Continue this compensation instead of starting one for a KEY."),
                    QStringLiteral("COMP_KEY")),
             option("override", QStringLiteral("Set aside the key-reuse and inconsistent-snapshot rules (reason >= 20 "
                                               "characters; audited).")),
             despiteClaimOption()},
            -1, QStringLiteral("resume"), true};
        return s;
    }

    bool dryRun(const QCommandLineParser &parser) const override { return parser.isSet(QStringLiteral("dry-run")); }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        const QString key = c.args.value(0);
        const bool resume = c.parser.isSet(QStringLiteral("resume"));
        CompensationRequest req;
        if (!resume) {
            req.sourceKey = key;
            req.action = c.parser.value(QStringLiteral("action")).trimmed();
            req.target = c.parser.value(QStringLiteral("target")).trimmed();
            req.reason = c.parser.value(QStringLiteral("reason"));
            req.dryRun = c.parser.isSet(QStringLiteral("dry-run"));
            req.override = c.parser.isSet(QStringLiteral("override"));
            if (req.action.isEmpty() || req.target.isEmpty())
                return c.out.usage(QStringLiteral("compensate: --action and --target are required"));
            if (req.reason.trimmed().isEmpty())
                return c.out.usage(QStringLiteral("compensate: --reason is required (it is audited)"));
        } else if (c.parser.isSet(QStringLiteral("dry-run"))) {
            return c.out.usage(QStringLiteral("compensate --resume re-sends a stored request: --dry-run does not apply"));
        } else if (c.parser.isSet(QStringLiteral("override"))) {
            return c.out.usage(QStringLiteral("compensate --resume: --override applies when a compensation starts, not to a resume"));
        }
        req.operatorName = workspace.config().operatorName;
        if (!resume) {
            // Claims stop others (DESIGN.md §8): before anything is planned, written or sent.
            if (const int held = checkClaimOnKey(workspace, c, key, QStringLiteral("compensated"), &req.reason); held != ExitOk)
                return held;
        } else if (c.parser.isSet(QStringLiteral("despite-claim"))) {
            return c.out.usage(QStringLiteral("compensate --resume finishes a started compensation: --despite-claim does not apply"));
        }
        const auto configs = compensationsFor(workspace, c.out, &m_simulator);
        if (!configs)
            return ExitUpstream;
        CompensationRunner runner(workspace, *configs);
        const CompensationOutcome o = resume ? runner.resume(c.parser.value(QStringLiteral("resume")), req.operatorName).result()
                                             : runner.start(req).result();
        return reportCompensation(c, o);
    }

private:
    std::unique_ptr<UpstreamSimulatorProcess> m_simulator; ///< the demo's upstream, while the command runs
};

} // namespace

std::unique_ptr<Command> makeCompensateCommand()
{
    return std::make_unique<CompensateCommand>();
}

} // namespace triage::ctl
