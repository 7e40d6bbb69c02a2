#include "Compensation.h"
#include "ReadOnlyText.h"
#include "FutureChain.h"

#include "CompensationHttp.h"
#include "CompensationSteps.h"
#include "ThreadExit.h"
#include "Log.h"
#include "OwnWrite.h"
#include "Workspace.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>

namespace triage {

using namespace compensation_steps;

QString compensationOutcomeName(CompensationOutcome::Kind k)
{
    using K = CompensationOutcome::Kind;
    switch (k) {
    case K::Planned: return QStringLiteral("planned");
    case K::Succeeded: return QStringLiteral("succeeded");
    case K::Failed: return QStringLiteral("failed");
    case K::Unknown: return QStringLiteral("unknown");
    case K::Existing: return QStringLiteral("existing");
    case K::Refused: return QStringLiteral("refused");
    case K::Error: return QStringLiteral("error");
    case K::NotFound: return QStringLiteral("not_found");
    case K::Proposed: return QStringLiteral("proposed");
    }
    return QStringLiteral("error");
}

namespace compensation_steps {

CompensationOutcome dbFailure(const DbError &e, const QString &compKey)
{
    CompensationOutcome o;
    o.kind = CompensationOutcome::Kind::Error;
    o.message = e.message;
    o.dbError = e;
    o.compKey = compKey;
    return o;
}

CompensationOutcome refused(const QString &why, bool config)
{
    CompensationOutcome o;
    o.kind = CompensationOutcome::Kind::Refused;
    o.message = why;
    o.configError = config;
    return o;
}

} // namespace compensation_steps

CompensationRunner::CompensationRunner(Workspace &workspace)
    : CompensationRunner(workspace, workspace.config().compensations)
{
}

CompensationRunner::CompensationRunner(Workspace &workspace, CompensationConfigs configs)
    : m_workspace(workspace), m_configs(std::move(configs))
{
    m_thread.setObjectName(QStringLiteral("compensation-http"));
    m_http = new CompensationHttp;
    m_http->moveToThread(&m_thread);
    m_thread.start();
}

CompensationRunner::~CompensationRunner()
{
    QMetaObject::invokeMethod(
        m_http,
        [http = m_http]() {
            delete http;
            releaseThreadLibraryState(); // HTTPS used OpenSSL on this thread: ThreadExit.h
        },
        Qt::BlockingQueuedConnection);
    m_http = nullptr;
    m_thread.quit();
    m_thread.wait();
}

namespace {

/// The idempotency key a compensation outcome wrote on (its intent, audit or proposal rows),
/// for read-your-writes: none for a dry run.
QStringList compensatedKeys(const CompensationOutcome &o, const QString &sourceKey)
{
    if (o.kind == CompensationOutcome::Kind::Planned)
        return {};
    const QString key = o.row ? o.row->sourceKey : sourceKey;
    return key.isEmpty() ? QStringList{} : QStringList{key};
}

} // namespace

QFuture<CompensationOutcome> CompensationRunner::start(const CompensationRequest &request)
{
    auto done = andThen(m_workspace.mergePool(), runStart(request), [this, request](CompensationOutcome o) {
        // Every real outcome is audited; the other kinds write their own rows.
        if (o.kind == CompensationOutcome::Kind::Refused && !request.dryRun && !request.reason.trimmed().isEmpty())
            return auditRefusal(std::move(o), QStringLiteral("compensate"), request.sourceKey, request.target,
                                request.operatorName, request.reason);
        return ready(std::move(o));
    });
    return afterOwnWrite(m_workspace, done, [key = request.sourceKey](const CompensationOutcome &o) { return compensatedKeys(o, key); });
}

QFuture<CompensationOutcome> CompensationRunner::resume(const QString &compKey, const QString &operatorName)
{
    auto done = andThen(m_workspace.mergePool(), runResume(compKey, operatorName), [this, operatorName](CompensationOutcome o) {
        if (o.kind == CompensationOutcome::Kind::Refused && o.row) {
            const CompensationRow row = *o.row;
            return auditRefusal(std::move(o), QStringLiteral("compensate_resume"), row.sourceKey, row.target, operatorName,
                                row.reason);
        }
        return ready(std::move(o));
    });
    return afterOwnWrite(m_workspace, done, [](const CompensationOutcome &o) { return compensatedKeys(o, QString()); });
}

QFuture<CompensationOutcome> CompensationRunner::writeAudit(const AuditEntry &entry, CompensationOutcome outcome)
{
    return continueWith(m_workspace.worker(DbRole::Idempotency)
        .run<qint64>([entry](DbSession &s) { return audit_sql::insert(s, entry); }, DbWorker::Retry::Never), m_workspace.mergePool(), [outcome = std::move(outcome)](const Outcome<qint64> &audited) {
            if (!audited.ok())
                logger("backend.compensation")->warn("compensation {}: audit row not written: {}", outcome.compKey.toStdString(),
                                                     audited.error->message.toStdString());
            return outcome;
        });
}

QFuture<CompensationOutcome> CompensationRunner::auditRefusal(CompensationOutcome out, const QString &action,
                                                              const QString &sourceKey, const QString &target,
                                                              const QString &operatorName, const QString &reason)
{
    AuditEntry a = auditStamp(action, sourceKey, operatorName.left(64)); // compensations record no db user
    a.reason = reason.trimmed().isEmpty() ? QStringLiteral("compensation") : reason.left(1000);
    QJsonObject from{{QStringLiteral("comp_key"), out.compKey}};
    if (out.row)
        from.insert(QStringLiteral("status"), out.row->status);
    a.fromState = QString::fromUtf8(QJsonDocument(from).toJson(QJsonDocument::Compact));
    a.evidence = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), out.compKey},
                                                             {QStringLiteral("target"), BusinessId(target).toJson()},
                                                             {QStringLiteral("refusal"), out.message}})
                                       .toJson(QJsonDocument::Compact));
    a.outcome = QStringLiteral("refused");
    a.detail = out.message;
    return continueWith(m_workspace.worker(DbRole::Idempotency)
        .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never), m_workspace.mergePool(), [out = std::move(out)](const Outcome<qint64> &audited) mutable {
            if (!audited.ok()) {
                logger("backend.compensation")->warn("compensation {}: audit row of a refusal not written: {}",
                                                     out.compKey.toStdString(), audited.error->message.toStdString());
                out.message += QStringLiteral(" (this refusal is not recorded in the audit trail: %1)").arg(audited.error->message);
            }
            return out;
        });
}

QFuture<Outcome<QVector<CompensationRow>>> CompensationRunner::list(const CompensationQuery &query)
{
    return m_workspace.worker(DbRole::Intent).run<QVector<CompensationRow>>(
        [query](DbSession &s) { return compensation_sql::read(s, query); });
}

QFuture<Outcome<QVector<CompensationAttemptRow>>> CompensationRunner::history(const QString &compKey)
{
    return m_workspace.worker(DbRole::Intent).run<QVector<CompensationAttemptRow>>(
        [compKey](DbSession &s) { return compensation_sql::attempts(s, compKey); });
}

QFuture<CompensationOutcome> CompensationRunner::existingOutcome(CompensationOutcome out, const CompensationRow &row,
                                                                 const CompensationRequest &request)
{
    out.kind = CompensationOutcome::Kind::Existing;
    out.row = row;
    if (const auto stored = CompensationHttpRequest::fromJson(row.request.toUtf8()))
        out.request = *stored; // what was sent, not what would be rendered now
    const bool open = !isFinal(compensationStatusFromName(row.status).value_or(CompensationStatus::Unknown));
    out.message = QStringLiteral("compensation %1 already exists (%2, started by %3)%4")
                      .arg(row.compKey, row.status, row.operatorName,
                           open ? QStringLiteral(": continue it with --resume %1").arg(row.compKey) : QString());
    AuditEntry a = auditStamp(audit_action::Compensate, request.sourceKey, request.operatorName.left(64));
    a.reason = request.reason.left(1000);
    a.evidence = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), row.compKey},
                                                             {QStringLiteral("existing_status"), row.status}})
                                       .toJson(QJsonDocument::Compact));
    a.outcome = QStringLiteral("conflict");
    a.detail = out.message;
    return writeAudit(a, std::move(out));
}

QFuture<CompensationOutcome> CompensationRunner::approve(qint64 id, const QString &approver, const QString &reason)
{
    if (const QString why = proposalDecisionReasonRefusal(reason); !why.isEmpty())
        return ready(refused(why));
    if (m_workspace.config().readOnly)
        return ready(refused(readOnlyText(m_workspace.config(), QStringLiteral("approving is disabled"))));
    auto read = m_workspace.worker(DbRole::Idempotency).run<std::optional<ProposalRow>>([id](DbSession &s) { return proposal_sql::read(s, id); });
    // The proposal's key, for read-your-writes once the approval has written (its row when it ran).
    auto proposalKey = std::make_shared<QString>();
    auto done = andThen(m_workspace.mergePool(), read, [=, this](const Outcome<std::optional<ProposalRow>> &row) -> QFuture<CompensationOutcome> {
        if (!row.ok())
            return ready(dbFailure(*row.error));
        if (!*row.value)
            return ready(refused(QStringLiteral("no proposal %1").arg(id), true));
        const ProposalRow p = **row.value;
        *proposalKey = p.idemKey;
        if (p.action != QString::fromUtf16(audit_action::Compensate))
            return ready(refused(QStringLiteral("proposal %1 is a %2, not a compensation").arg(QString::number(id), p.action), true));
        if (p.state != QLatin1String("open")) {
            // Decided already: refused as the approving statement refuses it, before anything is read.
            CompensationOutcome o = refused(QStringLiteral("proposal %1 is %2 (by %3 at %4: %5)")
                                                .arg(QString::number(id), p.state, p.decidedBy, p.decidedAt, p.decisionReason));
            o.proposalId = id;
            o.approvalRefused = true;
            return auditRefusal(std::move(o), QString::fromUtf16(audit_action::ProposalApprove), p.idemKey,
                                QJsonDocument::fromJson(p.expectedState.toUtf8()).object().value(QStringLiteral("target")).toString(),
                                approver, reason);
        }
        const QJsonObject expected = QJsonDocument::fromJson(p.expectedState.toUtf8()).object();
        CompensationRequest request;
        request.sourceKey = p.idemKey;
        request.action = expected.value(QStringLiteral("action")).toString();
        request.target = expected.value(QStringLiteral("target")).toString();
        request.reason = p.reason; // the proposer's; the approver's is the approval's
        request.operatorName = approver;
        request.override = p.override;
        const CompensationApproval approval{p, reason.trimmed()};
        return andThen(m_workspace.mergePool(), runStart(request, approval), [=, this](CompensationOutcome o) -> QFuture<CompensationOutcome> {
            o.proposalId = id;
            if (o.approvalRefused || (o.kind != CompensationOutcome::Kind::Refused && o.kind != CompensationOutcome::Kind::Existing))
                return ready(std::move(o));
            // A rule, the ticket or the record said no: nothing was sent, and what was proposed
            // can no longer be applied (DESIGN.md §9 "Four-eyes").
            const QString why = QStringLiteral("not applied at approval: ") + o.message;
            auto closed = m_workspace.worker(DbRole::Idempotency).run<bool>([id, approver, why](DbSession &s) {
                return proposal_sql::close(s, id, QStringLiteral("void"), approver, why);
            }, DbWorker::Retry::Never);
            return andThen(m_workspace.mergePool(), closed, [=, this](const Outcome<bool> &closed) mutable {
                if (closed.ok() && *closed.value)
                    o.message += QStringLiteral(" — proposal %1 is void").arg(id);
                if (o.kind == CompensationOutcome::Kind::Existing)
                    return ready(std::move(o));
                return auditRefusal(std::move(o), QStringLiteral("compensate"), request.sourceKey, request.target, approver,
                                    request.reason);
            });
        });
    });
    return afterOwnWrite(m_workspace, done, [proposalKey](const CompensationOutcome &o) { return compensatedKeys(o, *proposalKey); });
}

QFuture<CompensationOutcome> CompensationRunner::runStart(const CompensationRequest &request,
                                                          const std::optional<CompensationApproval> &approval)
{
    if (request.reason.trimmed().isEmpty())
        return ready(refused(QStringLiteral("a reason is required (it is audited)"), true));
    const WorkspaceConfig &config = m_workspace.config();
    const QString key = request.sourceKey;
    auto record = m_workspace.worker(DbRole::Idempotency).run<std::optional<RecordDetail>>([&config, key](DbSession &s) {
        return detail_sql::readRecord(s, config, key);
    });
    return andThen(m_workspace.mergePool(), record, [this, request, key, approval](const Outcome<std::optional<RecordDetail>> &record) -> QFuture<CompensationOutcome> {
        if (!record.ok())
            return ready(dbFailure(*record.error));
        if (!*record.value || !(*record.value)->bizType)
            return ready(refused(
                QStringLiteral("no idempotency record with a biz_type for \"%1\": the compensation endpoint is unknown").arg(key)));
        const QString bizType = *(*record.value)->bizType;
        const QMap<QString, CompensationActionConfig> actions = m_configs.value(bizType);
        const auto actionIt = actions.constFind(request.action);
        if (actionIt == actions.constEnd())
            return ready(refused(QStringLiteral("no compensation \"%1\" configured for biz_type %2 (compensation_%1_url in [biz.%2])")
                                     .arg(request.action, bizType),
                                 true));
        const CompensationActionConfig cfg = *actionIt;
        const RecordDetail rec = **record.value;
        auto tickets = m_workspace.worker(DbRole::Ticket).run<QVector<TicketRow>>([key, config = m_workspace.config()](DbSession &s) {
            return detail_sql::readTickets(s, config, key);
        });
        return andThen(m_workspace.mergePool(), tickets, [this, request, key, bizType, cfg, rec, approval](const Outcome<QVector<TicketRow>> &tickets) {
            return planned(request, key, bizType, cfg, rec, tickets, approval);
        });
    });
}

QFuture<CompensationOutcome> CompensationRunner::planned(const CompensationRequest &request, const QString &key,
                                                         const QString &bizType, const CompensationActionConfig &cfg,
                                                         const RecordDetail &rec, const Outcome<QVector<TicketRow>> &tickets,
                                                         const std::optional<CompensationApproval> &approval)
{
    if (!tickets.ok())
        return ready(dbFailure(*tickets.error));
    const TicketRow *target = nullptr;
    for (const TicketRow &t : *tickets.value)
        if (t.id == BusinessId(request.target)) // the exact text, as stored
            target = &t;
    if (!target)
        return ready(refused(QStringLiteral("ticket %1 does not carry the key \"%2\"").arg(request.target, key)));

    CompensationOutcome out;
    out.compKey = compensationKey(request.action, request.target, key);
    QString why;
    const auto req = renderCompensationRequest(cfg, request.target, key, target->tenantId.value_or(QString()), out.compKey, &why);
    if (!req)
        return ready(refused(QStringLiteral("[biz.%1] compensation_%2_%3").arg(bizType, request.action, why), true));
    out.request = *req;

    // A second click, operator or console finds the existing compensation first.
    const QString compKey = out.compKey;
    const QVector<TicketRow> ticketRows = *tickets.value;
    auto existing = m_workspace.worker(DbRole::Intent).run<std::optional<CompensationRow>>([compKey](DbSession &s) {
        return compensation_sql::byKey(s, compKey);
    });
    return andThen(m_workspace.mergePool(), existing, [=, this](const Outcome<std::optional<CompensationRow>> &existing) -> QFuture<CompensationOutcome> {
        if (!existing.ok())
            return ready(dbFailure(*existing.error, compKey));
        if (*existing.value)
            return existingOutcome(out, **existing.value, request);
        // The safety checks hold for a dry run too: the plan must be what a real run would do.
        const CompensationTargetDecision rule = compensationTargetRule(ticketRows, rec.statusText, rec.resultSnapshot,
                                                                       request.target, request.override, request.reason);
        if (!rule.refusal.isEmpty()) {
            CompensationOutcome o = refused(rule.refusal);
            o.overridable = rule.overridable;
            o.compKey = compKey;
            o.request = out.request;
            return ready(o);
        }
        CompensationRow intent;
        intent.compKey = compKey;
        intent.sourceKey = key;
        intent.bizType = bizType;
        intent.action = request.action;
        intent.target = request.target;
        intent.request = QString::fromUtf8(out.request.toJson());
        intent.operatorName = request.operatorName;
        intent.reason = request.reason;
        // The idempotency database first: the freeze, and four-eyes (propose, or approve).
        compensation_steps::GateInput in;
        in.request = request;
        in.bizType = bizType;
        in.compKey = compKey;
        in.expectedState = compensationExpectedState(compKey, request.action, request.target, target->status, rec.statusText);
        in.requestJson = intent.request;
        in.evidenceJson = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("override"), rule.overridden}}).toJson(QJsonDocument::Compact));
        in.approval = approval;
        collectAmount(in.amounts, QStringLiteral("ticket %1").arg(request.target), target->payload);
        collectAmount(in.amounts, QStringLiteral("the record's snapshot"), rec.resultSnapshot);
        auto gated = m_workspace.worker(DbRole::Idempotency).run<compensation_steps::Gate>(
            [in, config = m_workspace.config()](DbSession &s) { return compensation_steps::gate(s, config, in); }, DbWorker::Retry::Never);
        return andThen(m_workspace.mergePool(), gated, [=, this](const Outcome<compensation_steps::Gate> &g) -> QFuture<CompensationOutcome> {
            if (!g.ok()) {
                if (g.error->kind == DbError::Kind::Refused) { // the freeze
                    CompensationOutcome o = refused(g.error->message);
                    o.compKey = compKey;
                    o.request = out.request;
                    return ready(o);
                }
                return ready(dbFailure(*g.error, compKey));
            }
            CompensationOutcome o = out;
            o.proposalId = g->proposalId;
            o.message = g->message;
            if (g->kind == compensation_steps::Gate::Kind::Conflict) { // an open proposal for it: as a real run would say
                o.kind = CompensationOutcome::Kind::Existing;
                return ready(o);
            }
            if (request.dryRun) {
                o.kind = CompensationOutcome::Kind::Planned;
                o.message = QStringLiteral("would send %1 %2 with X-Idempotency-Key %3")
                                .arg(QString::fromUtf8(out.request.method), out.request.url, compKey);
                if (!rule.overridden.isEmpty())
                    o.message += QStringLiteral(" (override: %1)").arg(rule.overridden);
                if (!g->message.isEmpty())
                    o.message += QStringLiteral(" — ") + g->message;
                return ready(o);
            }
            switch (g->kind) {
            case compensation_steps::Gate::Kind::Conflict: break; // handled above
            case compensation_steps::Gate::Kind::Proposed:
                o.kind = CompensationOutcome::Kind::Proposed;
                return ready(o);
            case compensation_steps::Gate::Kind::Refused:
                o.kind = CompensationOutcome::Kind::Refused;
                o.approvalRefused = approval.has_value();
                return ready(o);
            case compensation_steps::Gate::Kind::Proceed: break;
            }
            return writeIntent(request, out, intent, rule.overridden, g->message);
        });
    });
}

QFuture<CompensationOutcome> CompensationRunner::writeIntent(const CompensationRequest &request, CompensationOutcome out,
                                                             CompensationRow intent, const QString &overridden, const QString &note)
{
    const QString compKey = intent.compKey;
    auto inserted = m_workspace.worker(DbRole::Intent).run<CompensationRow>(
        [intent](DbSession &s) { return compensation_sql::insertIntent(s, intent); }, DbWorker::Retry::Never);
    return andThen(m_workspace.mergePool(), inserted, [=, this](const Outcome<CompensationRow> &inserted) -> QFuture<CompensationOutcome> {
        if (!inserted.ok()) {
            // A unique violation (or a commit whose reply was lost): whoever holds the key wins.
            const DbError error = *inserted.error;
            auto again = m_workspace.worker(DbRole::Intent).run<std::optional<CompensationRow>>(
                [compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); });
            return andThen(m_workspace.mergePool(), again, [=, this](const Outcome<std::optional<CompensationRow>> &again) {
                if (error.isUniqueViolation() && again.ok() && *again.value)
                    return existingOutcome(out, **again.value, request);
                return ready(dbFailure(error, compKey));
            });
        }
        logger("backend.compensation")->info("compensation {} intent written ({} ticket {})", compKey.toStdString(),
                                             request.action.toStdString(), request.target.toStdString());
        if (qEnvironmentVariableIntValue("TRIAGE_TEST_CRASH_AFTER_INTENT") == 1)
            ::raise(SIGKILL); // test hook: a console killed between the intent and the call
        return drive(*inserted.value, out.request, false, request.operatorName, overridden, note);
    });
}

QFuture<CompensationOutcome> CompensationRunner::runResume(const QString &compKey, const QString &operatorName)
{
    auto row = m_workspace.worker(DbRole::Intent).run<std::optional<CompensationRow>>([compKey](DbSession &s) {
        return compensation_sql::byKey(s, compKey);
    });
    return andThen(m_workspace.mergePool(), row, [=, this](const Outcome<std::optional<CompensationRow>> &row) -> QFuture<CompensationOutcome> {
        if (!row.ok())
            return ready(dbFailure(*row.error, compKey));
        if (!*row.value) {
            CompensationOutcome o;
            o.kind = CompensationOutcome::Kind::NotFound;
            o.message = QStringLiteral("unknown compensation key \"%1\": no compensation has it (list them with "
                                       "`triagectl compensations`)")
                            .arg(compKey);
            o.compKey = compKey;
            return ready(o);
        }
        const CompensationRow r = **row.value;
        const auto req = CompensationHttpRequest::fromJson(r.request.toUtf8());
        if (!req) {
            CompensationOutcome o = refused(QStringLiteral("compensation %1: its stored request is unreadable").arg(compKey));
            o.compKey = compKey;
            o.row = r;
            return ready(o);
        }
        if (isFinal(compensationStatusFromName(r.status).value_or(CompensationStatus::Unknown)))
            return drive(r, *req, true, operatorName);
        // The canonical ticket is never a target, whenever the intent was planned: check the
        // key's tickets as they are now before anything is sent.
        const WorkspaceConfig &config = m_workspace.config();
        const QString key = r.sourceKey;
        auto record = m_workspace.worker(DbRole::Idempotency).run<std::optional<RecordDetail>>([&config, key](DbSession &s) {
            return detail_sql::readRecord(s, config, key);
        });
        const CompensationHttpRequest request = *req;
        return andThen(m_workspace.mergePool(), record, [=, this](const Outcome<std::optional<RecordDetail>> &record) -> QFuture<CompensationOutcome> {
            if (!record.ok())
                return ready(dbFailure(*record.error, compKey));
            auto tickets = m_workspace.worker(DbRole::Ticket).run<QVector<TicketRow>>([key, config](DbSession &s) {
                return detail_sql::readTickets(s, config, key);
            });
            return andThen(m_workspace.mergePool(), tickets, [=, this](const Outcome<QVector<TicketRow>> &tickets) -> QFuture<CompensationOutcome> {
                if (!tickets.ok())
                    return ready(dbFailure(*tickets.error, compKey));
                const QString status = *record.value ? (*record.value)->statusText : QString();
                const NullableText snapshot = *record.value ? (*record.value)->resultSnapshot : NullableText();
                const QString refusal = canonicalTargetRefusal(*tickets.value, status, snapshot, compKey, r.target, key);
                if (!refusal.isEmpty()) {
                    CompensationOutcome o = refused(refusal);
                    o.compKey = compKey;
                    o.row = r;
                    o.request = request;
                    return ready(o);
                }
                return drive(r, request, true, operatorName);
            });
        });
    });
}

} // namespace triage
