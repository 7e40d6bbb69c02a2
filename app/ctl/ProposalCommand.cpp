// triagectl proposals / approve / reject: four-eyes proposals (DESIGN.md §9 "Four-eyes").
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "ClaimCli.h"
#include "CompensateCli.h"
#include "UpstreamSimulatorProcess.h"
#include "Mark.h"
#include "Policy.h"
#include "TextEscape.h"
#include "TimeText.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

QStringList proposalHeader()
{
    return {QStringLiteral("id"),          QStringLiteral("state"),       QStringLiteral("action"),       QStringLiteral("idem_key"),
            QStringLiteral("biz_type"),    QStringLiteral("proposed_by"), QStringLiteral("proposed_at"),  QStringLiteral("expires_at"),
            QStringLiteral("reason"),      QStringLiteral("decided_by"),  QStringLiteral("decided_at"),   QStringLiteral("decision_reason"),
            QStringLiteral("expected_state"), QStringLiteral("snapshot_source"), QStringLiteral("proposal_hash"), QStringLiteral("what")};
}

QStringList proposalFields(const ProposalRow &p)
{
    return {QString::number(p.id), p.stateText(), p.action,     p.idemKey,    p.bizType,        p.proposedBy,     p.proposedAt, p.expiresAt,
            p.reason,              p.decidedBy,   p.decidedAt,  p.decisionReason, p.expectedState, p.snapshotSource, p.hash,
            proposalWhatText(p)};
}

/// triagectl proposals [--all]: the open proposals (expired shown "expired"), or every one.
class ProposalsCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("proposals"), QStringLiteral("proposals"),
            QStringLiteral("Four-eyes proposals waiting for a second operator."),
            QStringLiteral("proposals [--all]"),
            QStringLiteral("The marks, compensations and policy changes the safety policy (four_eyes,\n"
                           "four_eyes_amount_over, four_eyes_policy) made proposals: id, state (open,\n"
                           "expired, approved, rejected, void), action, key, who proposed it when, its expiry and reason.\n"
                           "Approve one with `triagectl approve ID --reason TEXT` (another operator), or reject it.\n"
                           "WHAT says what it would do (→ FAILED, the compensation, or policy NAME = VALUE).\n"
                           "--all: every state, newest 500 first. --limit N: the first N (default 100)."),
            {option("all", QStringLiteral("Every state, not only open ones."))},
            0};
        return s;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        Outcome<QVector<ProposalRow>> rows = readProposals(ws, c.parser.isSet(QStringLiteral("all"))).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        const qsizetype total = rows->size();
        if (c.limit > 0 && total > c.limit)
            rows.value->resize(c.limit);
        const QStringList header = proposalHeader();
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const ProposalRow &p : *rows) {
                QJsonObject o;
                const QStringList f = proposalFields(p);
                for (int i = 0; i < header.size(); ++i)
                    o.insert(header.at(i), f.at(i));
                o.insert(QStringLiteral("id"), double(p.id));
                o.insert(QStringLiteral("to_status"), p.toStatus);
                o.insert(QStringLiteral("snapshot"), p.snapshot ? QJsonValue(*p.snapshot) : QJsonValue(QJsonValue::Null));
                // JSON texts as JSON (an unreadable one stays the text it is; none is null).
                auto asJson = [](const QString &text) -> QJsonValue {
                    if (text.isEmpty())
                        return QJsonValue::Null;
                    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
                    return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(text);
                };
                o.insert(QStringLiteral("expected_state"), asJson(p.expectedState));
                o.insert(QStringLiteral("evidence"), asJson(p.evidence));
                // Undecided: null, not "" (an open proposal has no decision yet).
                if (p.decidedAt.isEmpty())
                    for (const char *field : {"decided_by", "decided_at", "decision_reason"})
                        o.insert(QLatin1String(field), QJsonValue::Null);
                a.append(o);
            }
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record(header);
            for (const ProposalRow &p : *rows)
                out += CsvWriter::record(proposalFields(p));
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("ID"), QStringLiteral("STATE"), QStringLiteral("ACTION"), QStringLiteral("WHAT"),
                         QStringLiteral("IDEM_KEY"), QStringLiteral("PROPOSED_BY"), QStringLiteral("PROPOSED_AT (UTC)"),
                         QStringLiteral("EXPIRES_AT (UTC)"), QStringLiteral("REASON"), QStringLiteral("DECIDED")});
            for (const ProposalRow &p : *rows)
                t.addRow({QString::number(p.id), p.stateText(), p.action, proposalWhatText(p), p.idemKey, p.proposedBy,
                          utcToSecond(p.proposedAt), utcToSecond(p.expiresAt), p.reason,
                          p.decidedBy.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(p.decidedBy, p.decisionReason)});
            const QString shown = rows->size() < total ? QStringLiteral(" (first %1 of %2: --limit 0 for all)").arg(rows->size()).arg(total) : QString();
            c.out.print(t.render() + (countText(rows->size(), QStringLiteral("proposal")) + shown).toUtf8() + '\n');
            break;
        }
        }
        return ExitOk;
    }
};

/// The ID argument of approve / reject: a whole number > 0.
int parseId(const CommandContext &c, const QString &verb, qint64 *id)
{
    bool ok = false;
    *id = c.args.value(0).toLongLong(&ok);
    if (!ok || *id <= 0)
        return c.out.usage(QStringLiteral("%1: ID must be a proposal id (a whole number from 1, as `triagectl proposals` lists), got \"%2\"")
                               .arg(verb, c.args.value(0)));
    if (!c.parser.isSet(QStringLiteral("reason")))
        return c.out.usage(QStringLiteral("%1: --reason TEXT is required").arg(verb));
    return ExitOk;
}

/// triagectl approve ID --reason TEXT: a second operator applies a proposal.
class ApproveCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("approve"), QStringLiteral("approve ID"),
            QStringLiteral("Approve a four-eyes proposal (another operator than its proposer)."),
            QStringLiteral("approve ID --reason TEXT"),
            QStringLiteral("Runs proposal ID's mark as proposed: fresh evidence, every safety rule now, the compare-and-set\n"
                           "against the state the proposer saw, and the approval in the same transaction. Refused (exit 4)\n"
                           "for the proposer (operator names compared trimmed and case-folded), the proposer's database user\n"
                           "unless four_eyes_db_users = shared, an expired, decided or edited proposal, or a rule that no\n"
                           "longer allows it; exit 3 when the record changed (the proposal is then void) or another operator's\n"
                           "live claim holds the key (unless --despite-claim); exit 1 for an unknown ID. Audited.\n"
                           "A compensation proposal starts its compensation as this operator: fresh reads, every rule, the\n"
                           "same rendered request, the approval just before the intent is written; the exit codes are\n"
                           "compensate's (0 succeeded, 4 refused, 5 UNKNOWN, …). A policy proposal (four_eyes_policy = on)\n"
                           "sets its policy row if it is still as the proposer saw it (else exit 3, void)."),
            {option("reason", QStringLiteral("Why (required, >= 10 characters; audited)."), QStringLiteral("TEXT")),
             despiteClaimOption()},
            1, QString(), true};
        return s;
    }

    int prepare(const CommandContext &c) override { return parseId(c, QStringLiteral("approve"), &m_id); }

    int run(Workspace &ws, const CommandContext &c) override
    {
        QString reason = c.parser.value(QStringLiteral("reason"));
        // Claims stop others as for mark (DESIGN.md §8): the proposal's key, before anything is written.
        const qint64 id = m_id;
        const auto row = ws.worker(DbRole::Idempotency)
                             .run<std::optional<ProposalRow>>([id](DbSession &s) { return proposal_sql::read(s, id); })
                             .result();
        if (!row.ok())
            return c.out.dbFailure(*row.error);
        if (*row && (*row)->action == policyProposalAction()) {
            // A policy change: applied by compare-and-set on the row as the proposer saw it.
            const Outcome<PolicyChange> o = approvePolicyProposal(ws, m_id, reason).result();
            if (!o.ok() && (o.error->kind == DbError::Kind::Refused || o.error->kind == DbError::Kind::Conflict)) {
                // A verdict, reported on stdout as a mark approval's is (exit 4 / 3), not an error.
                const bool refused = o.error->kind == DbError::Kind::Refused;
                const QString outcome = refused ? QStringLiteral("refused") : QStringLiteral("conflict");
                c.out.printSummary({QStringLiteral("proposal"), QStringLiteral("outcome"), QStringLiteral("message")},
                                   {m_id, outcome, o.error->message}, QStringLiteral("%1: %2").arg(outcome, o.error->message));
                return refused ? ExitRefused : ExitConflict;
            }
            if (!o.ok())
                return c.out.dbFailure(*o.error);
            c.out.printSummary({QStringLiteral("proposal"), QStringLiteral("name"), QStringLiteral("value"), QStringLiteral("version"),
                                QStringLiteral("message")},
                               {m_id, o->row.name, o->row.value, o->row.version, o->message}, QStringLiteral("applied: ") + o->message);
            return ExitOk;
        }
        const bool compensation = *row && (*row)->action == QString::fromUtf16(audit_action::Compensate);
        if (*row)
            if (const int held = checkClaimOnKey(ws, c, (*row)->idemKey, compensation ? QStringLiteral("compensated") : QStringLiteral("marked"),
                                                 &reason);
                held != ExitOk)
                return held;
        if (compensation) {
            // A compensation proposal: the compensation starts as this operator, the approval
            // in the gate before its intent is written (CompensationRunner::approve()).
            std::unique_ptr<UpstreamSimulatorProcess> simulator;
            const auto configs = compensationsFor(ws, c.out, &simulator);
            if (!configs)
                return ExitUpstream;
            CompensationRunner runner(ws, *configs);
            return reportCompensation(c, runner.approve(m_id, ws.config().operatorName, reason).result());
        }
        const Outcome<MarkResult> o = approveProposal(ws, m_id, reason).result();
        if (!o.ok())
            return c.out.dbFailure(*o.error);
        const QString sentence = QStringLiteral("%1: %2").arg(markKindName(o->kind), o->message);
        c.out.printSummary({QStringLiteral("proposal"), QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("message"),
                            QStringLiteral("audit_id")},
                           {m_id, o->idemKey, markKindName(o->kind), o->message, o->auditId}, sentence);
        switch (o->kind) {
        case MarkResult::Kind::Applied: return ExitOk;
        case MarkResult::Kind::Conflict: return ExitConflict;
        case MarkResult::Kind::Refused: return ExitRefused;
        default: return ExitDatabase;
        }
    }

private:
    qint64 m_id = 0;
};

/// triagectl reject ID --reason TEXT: closes a proposal without applying it.
class RejectCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("reject"), QStringLiteral("reject ID"),
            QStringLiteral("Reject a four-eyes proposal: nothing is applied."),
            QStringLiteral("reject ID --reason TEXT"),
            QStringLiteral("Closes open proposal ID as rejected (any operator, the proposer included: withdrawing it).\n"
                           "Audited (proposal.reject). Exit 3 when it is no longer open, 1 for an unknown ID."),
            {option("reason", QStringLiteral("Why (required, >= 10 characters; audited)."), QStringLiteral("TEXT"))},
            1, QString(), true};
        return s;
    }

    int prepare(const CommandContext &c) override { return parseId(c, QStringLiteral("reject"), &m_id); }

    int run(Workspace &ws, const CommandContext &c) override
    {
        const Outcome<ProposalRow> o = rejectProposal(ws, m_id, c.parser.value(QStringLiteral("reason"))).result();
        if (!o.ok())
            return c.out.dbFailure(*o.error);
        c.out.printSummary({QStringLiteral("proposal"), QStringLiteral("state"), QStringLiteral("decided_by"), QStringLiteral("reason")},
                           {o->id, o->state, o->decidedBy, o->decisionReason},
                           QStringLiteral("proposal %1 rejected by %2: %3").arg(QString::number(o->id), o->decidedBy, o->decisionReason));
        return ExitOk;
    }

private:
    qint64 m_id = 0;
};

} // namespace

std::unique_ptr<Command> makeProposalsCommand()
{
    return std::make_unique<ProposalsCommand>();
}

std::unique_ptr<Command> makeApproveCommand()
{
    return std::make_unique<ApproveCommand>();
}

std::unique_ptr<Command> makeRejectCommand()
{
    return std::make_unique<RejectCommand>();
}

} // namespace triage::ctl
