// Writes the demo's reconciliation history (DemoHistory.h) through the stores' own functions,
// in the order it happened, then moves each row's times back to when it happened with one
// bound UPDATE per row (the stores write the server's now; DESIGN.md §8 "The demo's reconcile
// pass and history").
#include "DemoHistory.h"

#include "Audit.h"
#include "ConsoleSchema.h"
#include "KeyDetail.h"
#include "Mark.h"
#include "Reconcile.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>

#include <algorithm>

namespace triage {

namespace {

constexpr qint64 kSecond = 1000000;

/// One thing that happened in the history, in time order.
struct Event {
    enum class Kind { Run, OperatorResolve, Claim };
    qint64 ago = 0;
    Kind kind = Kind::Run;
    int index = 0;
};

class HistoryWriter {
public:
    HistoryWriter(DbSession &s, const EscalationHistory &h, const QHash<QString, qint64> &attempts, UtcMicros now)
        : m_s(s), m_d(s.dialect()), m_h(h), m_attempts(attempts), m_now(now), m_ids(h.escalations.size(), 0)
    {
    }

    HistoryReport run()
    {
        requireKnownConsoleSchema(m_s);
        requireReconcileTables(m_s);
        QVector<Event> events;
        for (qsizetype i = 0; i < m_h.runs.size(); ++i)
            events.append({m_h.runs[i].startedAgo, Event::Kind::Run, int(i)});
        for (qsizetype i = 0; i < m_h.escalations.size(); ++i)
            if (m_h.escalations[i].end == HistoryEscalation::End::Operator)
                events.append({m_h.escalations[i].resolvedAgo, Event::Kind::OperatorResolve, int(i)});
        for (qsizetype i = 0; i < m_h.claims.size(); ++i)
            events.append({m_h.claims[i].claimedAgo, Event::Kind::Claim, int(i)});
        std::stable_sort(events.begin(), events.end(), [](const Event &a, const Event &b) { return a.ago > b.ago; });
        for (const Event &e : events) {
            switch (e.kind) {
            case Event::Kind::Run: writeRun(e.index); break;
            case Event::Kind::OperatorResolve: resolve(e.index, m_h.escalations[e.index].resolvedBy, m_h.escalations[e.index].resolution,
                                                       m_now - m_h.escalations[e.index].resolvedAgo); break;
            case Event::Kind::Claim: claim(m_h.claims[e.index]); break;
            }
        }
        return m_report;
    }

private:
    UtcMicros runAt(int run) const { return m_now - m_h.runs[run].startedAgo; }

    /// UPDATE `table` SET each column = its time WHERE `where` (bound through `b`).
    void setTimes(const QString &table, const QVector<QPair<QString, UtcMicros>> &times, const QString &where, SqlBuilder &b)
    {
        QStringList sets;
        for (const auto &[column, at] : times)
            sets << QStringLiteral("%1 = %2").arg(column, m_d.timeParam(b.bind(m_d.bindTime(at))));
        m_s.exec(QStringLiteral("UPDATE %1 SET %2 WHERE %3").arg(table, sets.join(QStringLiteral(", ")), where), b);
    }

    /// The latest audit row of `action` on `auditKey` moved to `at`; the times named in
    /// `stateTimes` inside its to_state set too (the state as of that moment).
    void backdateAudit(QStringView action, const QString &auditKey, UtcMicros at, const QVector<QPair<QString, UtcMicros>> &stateTimes = {})
    {
        SqlBuilder f;
        QSqlQuery q = m_s.exec(QStringLiteral("SELECT id, to_state FROM triage_audit WHERE id = (SELECT MAX(id) FROM triage_audit "
                                              "WHERE action = %1 AND idem_key = %2)")
                                   .arg(f.bind(action.toString()), f.bind(auditKey)),
                               f);
        if (!q.next())
            throw DbException({m_s.role(), DbError::Kind::Statement,
                               QStringLiteral("demo history: no %1 audit row of %2").arg(action.toString(), auditKey), {}});
        const qint64 id = q.value(0).toLongLong();
        SqlBuilder b;
        QString extra;
        if (!stateTimes.isEmpty()) {
            QJsonObject state = QJsonDocument::fromJson(q.value(1).toString().toUtf8()).object();
            for (const auto &[name, t] : stateTimes)
                state.insert(name, formatUtcMicros(t));
            extra = QStringLiteral(", to_state = %1").arg(b.bind(QString::fromUtf8(QJsonDocument(state).toJson(QJsonDocument::Compact))));
        }
        m_s.exec(QStringLiteral("UPDATE triage_audit SET at = %1%2 WHERE id = %3")
                     .arg(m_d.timeParam(b.bind(m_d.bindTime(at))), extra, b.bind(id)),
                 b);
    }

    QString facts(const HistoryEscalation &e, qint64 runId) const
    {
        QString note = e.note;
        if (e.externalSource)
            note = QStringLiteral("the agents' reconciler escalated the step (intent attempt #%1)").arg(m_attempts.value(e.idemKey));
        return QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("run_id"), runId},
                                                           {QStringLiteral("note"), note},
                                                           {QStringLiteral("action"), QStringLiteral("escalate")},
                                                           {QStringLiteral("why"), e.why},
                                                           {QStringLiteral("upstream"), e.upstream},
                                                           {QStringLiteral("verdict"), QJsonDocument::fromJson(e.verdictJson.toUtf8()).object()},
                                                           {QStringLiteral("answers"), QJsonArray()}})
                                     .toJson(QJsonDocument::Compact));
    }

    /// Run `run`: its row, what it raised and saw again, what it resolved, its counts.
    void writeRun(int run)
    {
        const UtcMicros started = runAt(run), seen = started + 20 * kSecond, finished = started + 40 * kSecond;
        const qint64 runId = reconcile_run_sql::start(m_s, m_h.runs[run].holder, false,
                                                      QStringLiteral("{\"biz_type\":null,\"limit\":0}"));
        ReconcileSummary sum;
        sum.runId = runId;
        sum.startedAt = formatUtcMicros(started); // finished_at stays null in the counts, as runReconcile() stores them
        for (qsizetype i = 0; i < m_h.escalations.size(); ++i) {
            const HistoryEscalation &e = m_h.escalations[i];
            if (e.raisedByRun > run || e.lastSeenByRun < run)
                continue;
            EscalationRaise r;
            r.idemKey = e.idemKey;
            r.bizType = e.bizType;
            r.tenant = e.tenant;
            r.reason = e.reason;
            r.facts = facts(e, runId);
            r.amount = e.amount;
            r.currency = e.currency;
            r.sourceRef = e.externalSource ? QStringLiteral("intent:%1").arg(m_attempts.value(e.idemKey)) : QStringLiteral("");
            r.runId = runId;
            r.operatorName = reconcilerOperator();
            m_s.begin();
            try {
                const EscalationRaiseResult raised = escalation_sql::raise(m_s, r);
                m_ids[i] = raised.escalation.id;
                SqlBuilder b;
                const QString where = QStringLiteral("id = %1").arg(b.bind(m_ids[i]));
                if (raised.kind == EscalationRaiseResult::Kind::Created) {
                    setTimes(QStringLiteral("triage_escalation"),
                             {{QStringLiteral("first_escalated_at"), seen}, {QStringLiteral("last_seen_at"), seen},
                              {QStringLiteral("sla_due_at"), seen + 24LL * 3600 * kSecond}},
                             where, b);
                    backdateAudit(audit_action::EscalationRaise, e.idemKey, seen);
                    ++sum.escalationsCreated;
                    ++m_report.escalations;
                } else {
                    setTimes(QStringLiteral("triage_escalation"), {{QStringLiteral("last_seen_at"), seen}}, where, b);
                    ++sum.escalationsUpdated;
                }
                m_s.commit();
            } catch (...) {
                m_s.rollback();
                throw;
            }
            ++sum.examined;
            ++sum.escalated;
            ++sum.queried;
            sum.unusable += e.upstream == QLatin1String("UNUSABLE");
            sum.byReason[escalationReasonName(e.reason)] += 1;
        }
        for (qsizetype i = 0; i < m_h.escalations.size(); ++i) {
            const HistoryEscalation &e = m_h.escalations[i];
            if (e.end != HistoryEscalation::End::Reconciler || e.resolvedByRun != run)
                continue;
            // The rule's own words for what the key is now (DESIGN.md §8 "Resolution rules").
            Escalation row;
            row.reason = e.reason;
            EscalationState now;
            now.recordSettled = true;
            now.liveTickets = 1;
            now.compensationSettled = true;
            const std::optional<QString> text = automaticResolution(row, now);
            if (text && resolve(int(i), reconcilerOperator(), *text, started + 30 * kSecond))
                ++sum.resolved;
        }
        sum.maxInFlight = qMin(sum.queried, 6);
        reconcile_run_sql::finish(m_s, runId, QStringLiteral("finished"), sum.toJson(), QString());
        SqlBuilder b;
        setTimes(QStringLiteral("triage_reconcile_run"),
                 {{QStringLiteral("started_at"), started}, {QStringLiteral("heartbeat_at"), finished}, {QStringLiteral("finished_at"), finished}},
                 QStringLiteral("id = %1").arg(b.bind(runId)), b);
        ++m_report.runs;
    }

    /// escalation_sql::resolve() (its own transaction and audit row), then its times moved to `at`.
    bool resolve(int index, const QString &by, const QString &text, UtcMicros at)
    {
        const auto r = escalation_sql::resolve(m_s, m_ids[index], text, by);
        if (r.kind != escalation_sql::EscalationResolveResult::Kind::Resolved)
            throw DbException({m_s.role(), DbError::Kind::Statement, QStringLiteral("demo history: %1").arg(r.message), {}});
        SqlBuilder b;
        setTimes(QStringLiteral("triage_escalation"), {{QStringLiteral("resolved_at"), at}}, QStringLiteral("id = %1").arg(b.bind(m_ids[index])), b);
        backdateAudit(audit_action::EscalationResolve, m_h.escalations[index].idemKey, at, {{QStringLiteral("resolved_at"), at}});
        ++m_report.resolved;
        return true;
    }

    void claim(const HistoryClaim &c)
    {
        const HistoryEscalation &e = m_h.escalations[c.escalation];
        const QString subject = c.scope == ClaimScope::Key ? e.idemKey : QString::number(m_ids[c.escalation]);
        const ClaimResult r = claim_sql::acquire(m_s, c.scope, subject, c.holder, c.ttlS);
        if (r.kind != ClaimResult::Kind::Taken)
            throw DbException({m_s.role(), DbError::Kind::Statement, QStringLiteral("demo history: %1").arg(r.message), {}});
        const UtcMicros at = m_now - c.claimedAgo, until = at + qint64(c.ttlS) * kSecond;
        SqlBuilder b;
        setTimes(QStringLiteral("triage_claim"), {{QStringLiteral("claimed_at"), at}, {QStringLiteral("expires_at"), until}},
                 QStringLiteral("scope = %1 AND subject = %2").arg(b.bind(claimScopeName(c.scope)), b.bind(subject)), b);
        backdateAudit(audit_action::ClaimTake, claimAuditKey(c.scope, subject), at,
                      {{QStringLiteral("claimed_at"), at}, {QStringLiteral("expires_at"), until}});
        ++m_report.claims;
    }

    DbSession &m_s;
    const SqlDialect &m_d;
    const EscalationHistory &m_h;
    const QHash<QString, qint64> &m_attempts;
    UtcMicros m_now;
    QVector<qint64> m_ids; ///< escalation index → its id once raised
    HistoryReport m_report;
};

template <typename T>
Outcome<HistoryReport> failedWith(const Outcome<T> &o)
{
    return Outcome<HistoryReport>::failure(*o.error);
}

} // namespace

namespace seed_sql {

HistoryReport insertEscalationHistory(DbSession &session, const EscalationHistory &history,
                                      const QHash<QString, qint64> &escalatedAttempt, UtcMicros now)
{
    return HistoryWriter(session, history, escalatedAttempt, now).run();
}

} // namespace seed_sql

Outcome<HistoryReport> seedEscalationHistory(Workspace &ws)
{
    const WorkspaceConfig config = ws.config();
    const auto first = ws.worker(DbRole::Ticket).run<SeedTicketIds>([config](DbSession &s) { return seed_sql::nextTicketIds(s, config); }).result();
    if (!first.ok())
        return failedWith(first);
    const auto history = std::make_shared<const EscalationHistory>(makeEscalationHistory(first->first));
    const auto now = std::make_shared<UtcMicros>(0);
    HistoryReport report;
    // One store after the other: the demo's three stores share one SQLite file (one writer).
    const auto records = ws.worker(DbRole::Idempotency)
                             .run<qint64>([=](DbSession &s) { return seed_sql::insertRecords(s, config, history->keys.records, now.get()); },
                                          DbWorker::Retry::Never)
                             .result();
    if (!records.ok())
        return failedWith(records);
    const auto tickets = ws.worker(DbRole::Ticket)
                             .run<qint64>([=](DbSession &s) { return seed_sql::insertTickets(s, config, history->keys.tickets); },
                                          DbWorker::Retry::Never)
                             .result();
    if (!tickets.ok())
        return failedWith(tickets);
    const auto intents = ws.worker(DbRole::Intent)
                             .run<qint64>([=](DbSession &s) { return seed_sql::insertIntents(s, config, history->keys.intents); },
                                          DbWorker::Retry::Never)
                             .result();
    if (!intents.ok())
        return failedWith(intents);
    const auto audits = ws.worker(DbRole::Idempotency)
                            .run<qint64>([=](DbSession &s) { return seed_sql::insertAudits(s, history->keys.audits, {}, *now); },
                                         DbWorker::Retry::Never)
                            .result();
    if (!audits.ok())
        return failedWith(audits);
    // EXTERNAL's source: the key's latest ESCALATED attempt, as the reconciler reads it.
    QHash<QString, qint64> attempts;
    for (const HistoryEscalation &e : history->escalations) {
        if (!e.externalSource || attempts.contains(e.idemKey))
            continue;
        const KeyDetail d = loadKeyDetail(ws, e.idemKey).result();
        if (!d.errors.isEmpty())
            return Outcome<HistoryReport>::failure(d.errors.first());
        const MarkEvidence ev = markEvidenceOf(d);
        attempts.insert(e.idemKey, ev.escalatedAttemptIds.isEmpty() ? 0 : *std::max_element(ev.escalatedAttemptIds.cbegin(), ev.escalatedAttemptIds.cend()));
    }
    const auto written = ws.worker(DbRole::Idempotency)
                             .run<HistoryReport>([=](DbSession &s) { return seed_sql::insertEscalationHistory(s, *history, attempts, *now); },
                                                 DbWorker::Retry::Never)
                             .result();
    if (!written.ok())
        return written;
    report = *written;
    report.records = *records;
    report.tickets = *tickets;
    report.intents = *intents;
    report.audits = *audits;
    return Outcome<HistoryReport>::success(report);
}

} // namespace triage
