// triagectl escalations: what reconciliation handed to humans, and resolving it (DESIGN.md
// §8 "Escalations").
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
#include <QJsonObject>

namespace triage::ctl {

namespace {

QJsonValue textOrNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

/// "open", "overdue" (open past its SLA) or "resolved".
QString stateText(const Escalation &e)
{
    if (!e.isOpen())
        return QStringLiteral("resolved");
    return e.overdue ? QStringLiteral("overdue") : QStringLiteral("open");
}

QJsonObject escalationJson(const EscalationRow &r)
{
    const Escalation &e = r.escalation;
    const std::optional<Claim> claim = r.shownClaim();
    return {{QStringLiteral("id"), e.id},
            {QStringLiteral("idem_key"), e.idemKey},
            {QStringLiteral("biz_type"), e.bizType},
            {QStringLiteral("tenant"), e.tenant},
            {QStringLiteral("reason"), escalationReasonName(e.reason)},
            {QStringLiteral("state"), stateText(e)},
            {QStringLiteral("facts"), e.facts},
            {QStringLiteral("amount"), e.amount ? QJsonValue(*e.amount) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("currency"), e.currency},
            {QStringLiteral("source_ref"), e.sourceRef},
            {QStringLiteral("first_escalated_at"), e.firstEscalatedAt},
            {QStringLiteral("last_seen_at"), e.lastSeenAt},
            {QStringLiteral("age_s"), e.ageS},
            {QStringLiteral("run_id"), e.runId},
            {QStringLiteral("sla_due_at"), textOrNull(e.slaDueAt)},
            {QStringLiteral("resolution"), textOrNull(e.resolution)},
            {QStringLiteral("resolved_at"), textOrNull(e.resolvedAt)},
            {QStringLiteral("resolved_by"), textOrNull(e.resolvedBy)},
            {QStringLiteral("version"), e.version},
            {QStringLiteral("claimed_by"), claim ? QJsonValue(claim->holder) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("claimed"), claim ? QJsonValue(claimedByText(*claim)) : QJsonValue(QJsonValue::Null)}};
}

class EscalationsCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("escalations"), QStringLiteral("escalations"),
            QStringLiteral("Escalations reconciliation handed to humans; resolve one."),
            QStringLiteral("escalations [--all] [--reason CODE] [--biz-type T] [--tenant T]  |  escalations resolve ID --reason TEXT"),
            QStringLiteral(
                "Lists the open escalations (triage_escalation), oldest first (--all: resolved ones too),\n"
                "with their reason code, age, SLA and who has claimed them (\"claimed by alice, 4 min ago\").\n"
                "Reason codes: CONTRADICTION, AGENT_SAW_SUCCESS, DUPLICATE, KEY_REUSE, UPSTREAM_UNUSABLE,\n"
                "NO_QUERY_API, AMOUNT_MISMATCH, EXPIRING, STUCK_COMPENSATION, POLICY, EXTERNAL. At most\n"
                "--limit rows (the count line says how many there are: \"100 escalations (of 111); --limit 0\n"
                "lists all\").\n"
                "resolve closes escalation ID with --reason (>= 10 characters; exit 4 when shorter), by\n"
                "compare-and-set, audited in triage_audit (escalation.resolve, idem_key the key). An\n"
                "escalation already resolved is a conflict (exit 3, naming who and when); an unknown ID\n"
                "exits 1; read-only mode exits 4. An escalation (or its key) another operator's live claim\n"
                "holds is not resolved (exit 3, naming the holder) unless --despite-claim, noted in the\n"
                "audited resolution; resolving releases the escalation's own claim. The reconciler resolves some reasons by itself when the\n"
                "key's state allows it (DESIGN.md §8 \"Resolution rules\"); AMOUNT_MISMATCH, CONTRADICTION\n"
                "and EXTERNAL only an operator resolves."),
            {option("all", QStringLiteral("Resolved escalations too.")),
             option("reason", QStringLiteral("list: only this reason code; resolve: why (>= 10 characters; audited)."),
                    QStringLiteral("TEXT")),
             option("biz-type", QStringLiteral("Only this biz_type (exact)."), QStringLiteral("T")),
             option("tenant", QStringLiteral("Only this tenant (exact)."), QStringLiteral("T")), despiteClaimOption()},
            0, QString(), false, true, true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        m_resolve = c.args.value(0) == QLatin1String("resolve");
        if (!m_resolve) {
            if (!c.args.isEmpty())
                return c.out.usage(QStringLiteral("escalations: unexpected argument \"%1\" (escalations resolve ID --reason TEXT)")
                                       .arg(c.args.value(0)));
            if (c.parser.isSet(QStringLiteral("reason"))) {
                const QString code = c.parser.value(QStringLiteral("reason")).trimmed().toUpper();
                m_query.reason = escalationReasonFromName(code);
                if (!m_query.reason) {
                    QStringList names;
                    for (EscalationReason r : allEscalationReasons())
                        names << escalationReasonName(r);
                    return c.out.usage(QStringLiteral("escalations: --reason \"%1\": one of %2")
                                           .arg(c.parser.value(QStringLiteral("reason")), names.join(QStringLiteral(", "))));
                }
            }
            if (c.parser.isSet(QStringLiteral("despite-claim")))
                return c.out.usage(QStringLiteral("escalations: --despite-claim goes with resolve"));
            m_query.openOnly = !c.parser.isSet(QStringLiteral("all"));
            m_query.bizType = c.parser.value(QStringLiteral("biz-type"));
            m_query.tenant = c.parser.value(QStringLiteral("tenant"));
            m_query.limit = c.limit;
            return ExitOk;
        }
        if (c.args.size() != 2)
            return c.out.usage(c.args.size() < 2 ? QStringLiteral("escalations resolve: missing escalation ID")
                                                 : QStringLiteral("escalations resolve: unexpected argument \"%1\"").arg(c.args.value(2)));
        bool ok = false;
        m_id = c.args.value(1).trimmed().toLongLong(&ok);
        if (!ok || m_id <= 0)
            return c.out.usage(QStringLiteral("escalations resolve: \"%1\" is not an escalation ID").arg(c.args.value(1)));
        for (const char *other : {"all", "biz-type", "tenant"})
            if (c.parser.isSet(QString::fromLatin1(other)))
                return c.out.usage(QStringLiteral("escalations resolve takes no --%1").arg(QLatin1String(other)));
        if (!c.parser.isSet(QStringLiteral("reason")))
            return c.out.usage(QStringLiteral("escalations resolve needs --reason TEXT (>= 10 characters)"));
        return ExitOk;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        return m_resolve ? resolve(ws, c) : list(ws, c);
    }

private:
    int resolve(Workspace &ws, const CommandContext &c) const
    {
        using Kind = escalation_sql::EscalationResolveResult::Kind;
        // Claims stop others (DESIGN.md §8): the escalation's claim, or its key's. Read-only
        // mode refuses first (resolveEscalation(), exit 4).
        int failure = ExitOk;
        const auto blocks = ws.config().readOnly ? std::optional<QHash<QString, ClaimBlock>>(QHash<QString, ClaimBlock>())
                                                 : readClaimBlocks(ws, c, {}, m_id, &failure);
        if (!blocks)
            return failure;
        QString reason = c.parser.value(QStringLiteral("reason"));
        if (!blocks->isEmpty()) {
            const ClaimBlock block = blocks->cbegin().value();
            if (!c.parser.isSet(QStringLiteral("despite-claim"))) {
                c.out.message(claimRefusalText(block, QStringLiteral("resolved")));
                return ExitConflict;
            }
            if (reason.trimmed().size() >= kOperatorReasonMinChars)
                reason = reason.trimmed() + block.despiteNote();
        }
        const auto out = resolveEscalation(ws, m_id, reason).result();
        if (!out.ok())
            return c.out.dbFailure(*out.error);
        int code = ExitOk;
        switch (out->kind) {
        case Kind::Resolved: break;
        case Kind::NotFound: code = ExitUsage; break;
        case Kind::Conflict: code = ExitConflict; break;
        case Kind::Refused: code = ExitRefused; break;
        }
        if (c.out.format() == Format::Json) {
            const QJsonObject o{{QStringLiteral("escalation"), m_id},
                                {QStringLiteral("outcome"), escalation_sql::resolveKindName(out->kind)},
                                {QStringLiteral("message"), out->message},
                                {QStringLiteral("version"), out->current ? QJsonValue(out->current->version) : QJsonValue(QJsonValue::Null)}};
            c.out.print(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
            if (code != ExitOk)
                c.out.message(out->message);
        } else if (code == ExitOk) {
            c.out.print((TextTable::oneLine(out->message) + QLatin1Char('\n')).toUtf8());
        } else {
            c.out.message(out->message);
        }
        return code;
    }

    int list(Workspace &ws, const CommandContext &c) const
    {
        const auto rows = listEscalations(ws, m_query).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        // Cut by --limit: the count line says so, as list's does.
        qint64 total = rows->size();
        if (m_query.limit > 0 && rows->size() >= m_query.limit && c.out.format() == Format::Table) {
            const auto counted = countEscalations(ws, m_query).result();
            if (!counted.ok())
                return c.out.dbFailure(*counted.error);
            total = *counted;
        }
        auto fields = [](const EscalationRow &r) {
            const Escalation &e = r.escalation;
            const std::optional<Claim> claim = r.shownClaim();
            return QStringList{QString::number(e.id), escalationReasonName(e.reason), e.idemKey, e.bizType, e.tenant, stateText(e),
                               e.firstEscalatedAt, e.slaDueAt, claim ? claimedByText(*claim) : QString(),
                               e.isOpen() ? QString() : QStringLiteral("%1: %2").arg(e.resolvedBy, e.resolution)};
        };
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const EscalationRow &r : *rows)
                a.append(escalationJson(r));
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record({QStringLiteral("id"), QStringLiteral("reason"), QStringLiteral("idem_key"),
                                                QStringLiteral("biz_type"), QStringLiteral("tenant"), QStringLiteral("state"),
                                                QStringLiteral("first_escalated_at"), QStringLiteral("sla_due_at"),
                                                QStringLiteral("claimed"), QStringLiteral("resolution")});
            for (const EscalationRow &r : *rows)
                out += CsvWriter::record(fields(r));
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("ID"), QStringLiteral("REASON"), QStringLiteral("IDEM_KEY"), QStringLiteral("BIZ_TYPE"),
                         QStringLiteral("TENANT"), QStringLiteral("STATE"), QStringLiteral("FIRST_ESCALATED (UTC)"),
                         QStringLiteral("SLA_DUE (UTC)"), QStringLiteral("CLAIMED"), QStringLiteral("RESOLUTION")});
            t.alignRight(0);
            for (const EscalationRow &r : *rows)
                t.addRow(fields(r));
            c.out.print(t.render()
                        + shownOfTotalText(rows->size(), total, m_query.limit, QStringLiteral("escalation"), QStringLiteral("escalations"), false)
                              .toUtf8()
                        + '\n');
            break;
        }
        }
        return ExitOk;
    }

    bool m_resolve = false;
    qint64 m_id = 0;
    EscalationQuery m_query;
};

} // namespace

std::unique_ptr<Command> makeEscalationsCommand()
{
    return std::make_unique<EscalationsCommand>();
}

} // namespace triage::ctl
