// The demo's 14 days of reconciliation history, as a plan (DESIGN.md §8 "The demo's reconcile
// pass and history"). Each escalation has a key of its own whose rows tell the same story: what
// the run saw when it raised it (tickets, intent-log attempts, the record still PROCESSING and
// stale), and what happened after (the agent settled it, an operator marked it, compensated
// nothing, resolved it with a reason).
#include "DemoHistory.h"

#include "AuditEntry.h"
#include "Verdict.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <array>

namespace triage {

namespace {

constexpr qint64 kSecond = 1000000;
constexpr qint64 kMinute = 60 * kSecond;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;
constexpr int kDays = 14;
/// The history's own seed (keys, request ids): not the demo set's, so no key collides.
constexpr quint32 kHistorySeed = 20261129 + kDays;

enum class Story {
    Unusable,              ///< UPSTREAM_UNUSABLE; the agent settled it; the next run resolved it
    AgentSawSuccess,       ///< AGENT_SAW_SUCCESS; an operator marked it FAILED; the next run resolved it
    DuplicateCompensated,  ///< DUPLICATE; the agents cancelled the extra ticket; the next run resolved it
    DuplicateResolved,     ///< DUPLICATE; an operator resolved it (both tickets kept)
    DuplicateOpen,         ///< DUPLICATE; the key is still PROCESSING with two live tickets
    KeyReuseResolved,      ///< KEY_REUSE; an operator resolved it
    KeyReuseOpen,          ///< KEY_REUSE; still PROCESSING
    ContradictionResolved, ///< CONTRADICTION; an operator queried, marked SUCCESS and resolved it
    ContradictionOpen,     ///< CONTRADICTION; the agent settled the record, nobody resolved it
    AmountResolved,        ///< AMOUNT_MISMATCH; an operator resolved it with finance's answer
    AmountOpen,            ///< AMOUNT_MISMATCH; open
    ExternalResolved,      ///< EXTERNAL; the agent settled it, an operator resolved it
    ExternalOpen,          ///< EXTERNAL; still PROCESSING
};

using S = Story;
/// What the runs raised, from 14 days ago (first line) to yesterday (last line).
const std::array<std::vector<Story>, kDays> kSchedule = {{
    {S::Unusable, S::KeyReuseResolved, S::AmountOpen, S::ContradictionResolved},
    {S::AgentSawSuccess, S::DuplicateResolved, S::ExternalResolved, S::Unusable},
    {S::AmountResolved, S::Unusable, S::DuplicateCompensated, S::ContradictionOpen},
    {S::Unusable, S::AgentSawSuccess, S::KeyReuseResolved, S::AmountResolved},
    {S::ExternalResolved, S::DuplicateCompensated, S::Unusable, S::ContradictionResolved, S::AmountOpen},
    {S::ContradictionOpen, S::Unusable, S::DuplicateResolved, S::AgentSawSuccess},
    {S::AmountResolved, S::ExternalResolved, S::Unusable, S::DuplicateCompensated},
    {S::DuplicateOpen, S::Unusable, S::AgentSawSuccess, S::ContradictionResolved},
    {S::AmountOpen, S::KeyReuseResolved, S::Unusable, S::DuplicateCompensated, S::ExternalResolved},
    {S::ExternalOpen, S::Unusable, S::AmountResolved, S::AgentSawSuccess},
    {S::KeyReuseOpen, S::ContradictionOpen, S::Unusable, S::DuplicateResolved},
    {S::AmountOpen, S::DuplicateOpen, S::Unusable, S::AgentSawSuccess, S::ContradictionResolved},
    {S::ExternalOpen, S::ContradictionOpen, S::Unusable, S::DuplicateCompensated},
    {S::AmountOpen, S::DuplicateOpen, S::Unusable, S::AgentSawSuccess, S::DuplicateCompensated},
}};

const char *const kTenants[] = {"acme", "globex", "initech", "umbrella", "zürich"};
const char *const kOperators[] = {"alice", "bob", "carol", "dave", "erin"};
const char *const kTitles[] = {"Printer queue stuck", "Access request: billing dashboard", "Disk almost full on db-03",
                               "Laptop replacement for new hire", "Café POS terminal offline", "Refund for double charge"};

struct Biz {
    const char *bizType, *keyPrefix, *action;
};
const Biz kTicket{"ticket_create", "ticket:create:", "create_ticket"};
const Biz kPay{"payment_capture", "pay:capture:", "capture_payment"};
const Biz kRefund{"refund_issue", "refund:issue:", "issue_refund"};
const Biz kNotify{"notify_send", "", "send_notification"};

QString json(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QString currencyOf(const QString &tenant)
{
    if (tenant == QStringLiteral("zürich"))
        return QStringLiteral("CHF");
    if (tenant == QLatin1String("acme"))
        return QStringLiteral("USD");
    if (tenant == QLatin1String("initech"))
        return QStringLiteral("GBP");
    return QStringLiteral("EUR");
}

class HistoryGenerator {
public:
    explicit HistoryGenerator(qint64 firstTicketId) : m_rng(kHistorySeed), m_nextTicket(firstTicketId) {}

    EscalationHistory run()
    {
        for (int i = 0; i < kDays; ++i)
            m_out.runs.append({runAgo(i), QStringLiteral("reconciler:demo-cron:%1").arg(4100 + i)});
        for (int i = 0; i < kDays; ++i)
            for (Story s : kSchedule[i])
                tell(s, i);
        addClaims();
        return m_out;
    }

private:
    static qint64 runAgo(int run) { return qint64(kDays - run) * kDay - 2 * kHour; }
    qint64 between(qint64 lo, qint64 hi) { return lo + qint64(m_rng.bounded(double(hi - lo))); }

    struct Key {
        const Biz *biz;
        QString tenant, key, taskId;
    };

    Key newKey(const Biz &biz)
    {
        const int n = m_serial++;
        Key k{&biz, QString(), QString(), QStringLiteral("task_%1_%2").arg(kHistorySeed).arg(200000 + n)};
        if (*biz.keyPrefix) {
            k.tenant = QString::fromUtf8(kTenants[m_rng.bounded(int(std::size(kTenants)))]);
            k.key = QString::fromLatin1(biz.keyPrefix) + k.tenant + QLatin1Char(':') + seedUuid(m_rng);
        } else {
            k.key = QStringLiteral("%1_step_1_%2").arg(k.taskId, QString::fromLatin1(biz.action));
        }
        return k;
    }

    bool money(const Key &k) const { return k.biz == &kPay || k.biz == &kRefund; }

    /// The business amount of the key's `n`-th operation, as the demo writes amounts ("129.00").
    QString amountFor(int n) const { return QStringLiteral("%1.%2").arg(40 + (m_serial * 37 + n * 11) % 460).arg((n * 25) % 100, 2, 10, QLatin1Char('0')); }

    SeedTicket &addTicket(const Key &k, qint64 createdAgo, const QString &title, const std::optional<QString> &amount,
                          const QString &status = QStringLiteral("OPEN"))
    {
        SeedTicket t;
        t.id = m_nextTicket++;
        t.idemKey = k.key;
        t.tenant = k.tenant;
        t.title = title;
        t.status = status;
        QJsonObject o{{QStringLiteral("ticket_id"), double(t.id)}, {QStringLiteral("tenant"), k.tenant},
                      {QStringLiteral("title"), title}, {QStringLiteral("priority"), QStringLiteral("P2")}};
        if (amount) {
            o.insert(QStringLiteral("amount"), *amount);
            o.insert(QStringLiteral("currency"), currencyOf(k.tenant));
        }
        t.payload = json(o);
        t.createdAgo = createdAgo;
        t.updatedAgo = createdAgo;
        m_out.keys.tickets.append(t);
        return m_out.keys.tickets.last();
    }

    SeedIntent &addAttempt(const Key &k, const QString &status, qint64 createdAgo, const QString &title)
    {
        SeedIntent a;
        a.taskId = k.taskId;
        a.stepId = QStringLiteral("step_1");
        a.action = QString::fromLatin1(k.biz->action);
        a.idemKey = k.key;
        a.status = status;
        a.actor = QStringLiteral("agent-%1").arg(1 + m_serial % 4);
        a.request = json({{QStringLiteral("tenant"), k.tenant}, {QStringLiteral("idempotency_key"), k.key}, {QStringLiteral("title"), title}});
        a.createdAgo = createdAgo;
        a.updatedAgo = createdAgo - 30 * kSecond;
        if (status == QLatin1String("SUCCEEDED")) {
            a.updatedAgo = createdAgo - 2 * kSecond;
            a.response = QStringLiteral("{\"ok\":true,\"status\":201}");
        } else if (status == QLatin1String("UNKNOWN")) {
            a.error = QStringLiteral("timeout after 30000 ms waiting for upstream reply");
        } else if (status == QLatin1String("ESCALATED")) {
            a.updatedAgo = createdAgo - kSecond;
            a.actor = QStringLiteral("reconciler");
            a.error = QStringLiteral("reconciliation: the capture's state upstream is unknown; handed to a human");
        } else if (status == QLatin1String("COMPENSATED")) {
            a.updatedAgo = createdAgo - kSecond;
            a.response = QStringLiteral("{\"ok\":true,\"status\":200,\"cancelled\":true}");
        }
        m_out.keys.intents.append(a);
        return m_out.keys.intents.last();
    }

    SeedRecord &addRecord(const Key &k, qint64 processingSinceAgo)
    {
        SeedRecord r;
        r.idemKey = k.key;
        r.bizType = QString::fromLatin1(k.biz->bizType);
        r.tenant = k.tenant;
        r.status = Processing;
        r.createdAgo = processingSinceAgo;
        r.updatedAgo = processingSinceAgo;
        r.expireAgo = processingSinceAgo - 30 * kDay;
        m_out.keys.records.append(r);
        return m_out.keys.records.last();
    }

    /// The agent settles the record at `atAgo` (no audit row: the agents write their records).
    static void settle(SeedRecord &r, RecordStatusCode to, qint64 atAgo, const std::optional<QString> &snapshot)
    {
        r.status = to;
        r.updatedAgo = atAgo;
        r.snapshot = snapshot;
    }

    /// What the run saw (suggestVerdict(), as the reconciler computes it) and the decision's words.
    void saw(HistoryEscalation &e, const Key &k, UpstreamAnswer answer, const QString &upstreamObject)
    {
        VerdictInput in;
        in.recordStale = true;
        in.recordStatus = QStringLiteral("PROCESSING");
        for (const SeedTicket &t : std::as_const(m_out.keys.tickets))
            if (t.idemKey == k.key && t.createdAgo > m_out.runs[e.raisedByRun].startedAgo)
                in.tickets.append({BusinessId::fromInteger(t.id), t.payload, QStringLiteral("OPEN"), QString()});
        for (const SeedIntent &a : std::as_const(m_out.keys.intents))
            if (a.idemKey == k.key && a.createdAgo > m_out.runs[e.raisedByRun].startedAgo)
                in.attemptStatuses << a.status;
        in.upstream = answer;
        in.upstreamObject = upstreamObject;
        in.ticketAbsentIsEvidence = k.biz == &kTicket;
        const Verdict v = suggestVerdict(in);
        e.verdictJson = QString::fromUtf8(v.toJson(4096));
        e.why = QStringLiteral("§6 row %1 → %2").arg(v.row).arg(verdictName(v.kind));
        e.upstream = upstreamAnswerName(answer);
        if (e.reason == EscalationReason::KeyReuse)
            e.note = QStringLiteral("tickets of the key differ in %1").arg(v.keyReuseFields.join(QStringLiteral(", ")));
    }

    HistoryEscalation &escalate(const Key &k, EscalationReason reason, int run, const QString &note)
    {
        HistoryEscalation e;
        e.idemKey = k.key;
        e.bizType = QString::fromLatin1(k.biz->bizType);
        e.tenant = k.tenant;
        e.reason = reason;
        e.note = note;
        e.raisedByRun = run;
        e.lastSeenByRun = run;
        m_out.escalations.append(e);
        return m_out.escalations.last();
    }

    /// Resolved by the next run's automatic rule (the creation pass resolves yesterday's).
    void byNextRun(HistoryEscalation &e, int run)
    {
        if (run + 1 < kDays) {
            e.end = HistoryEscalation::End::Reconciler;
            e.resolvedByRun = run + 1;
        }
    }

    /// Resolved by the next operator in turn, `after` µs after the run (before now).
    void byOperator(HistoryEscalation &e, int run, qint64 after, const QString &resolution)
    {
        e.end = HistoryEscalation::End::Operator;
        e.resolvedBy = QString::fromLatin1(kOperators[m_operator++ % std::size(kOperators)]);
        e.resolution = resolution;
        e.resolvedAgo = qMax(m_out.runs[run].startedAgo - after, 20 * kMinute);
    }

    /// Still PROCESSING: every later run of the history saw it again.
    void stillStale(HistoryEscalation &e) { e.lastSeenByRun = kDays - 1; }

    void tell(Story s, int run)
    {
        const qint64 raised = m_out.runs[run].startedAgo;
        const qint64 since = raised + between(kHour, 10 * kHour); // PROCESSING since, stale at the run
        const QString title = QString::fromUtf8(kTitles[m_serial % std::size(kTitles)]);
        switch (s) {
        case S::Unusable: {
            static const Biz *const biz[] = {&kPay, &kRefund, &kNotify};
            const Key k = newKey(*biz[m_serial % 3]);
            addAttempt(k, QStringLiteral("UNKNOWN"), since, title);
            SeedRecord &r = addRecord(k, since);
            // The agent's retry got through hours after the run.
            const qint64 at = raised - between(2 * kHour, 18 * kHour);
            addAttempt(k, QStringLiteral("SUCCEEDED"), at + 3 * kSecond, title);
            const SeedTicket &t = addTicket(k, at, title, money(k) ? std::optional<QString>(amountFor(0)) : std::nullopt);
            settle(r, Success, at - kSecond, t.payload);
            HistoryEscalation &e = escalate(k, EscalationReason::UpstreamUnusable, run, QStringLiteral("the upstream's answer was not definitive"));
            saw(e, k, UpstreamAnswer::Unusable, QString());
            byNextRun(e, run);
            break;
        }
        case S::AgentSawSuccess: {
            const Key k = newKey(m_serial % 2 ? kTicket : kNotify);
            addAttempt(k, QStringLiteral("SUCCEEDED"), since, title);
            SeedRecord &r = addRecord(k, since);
            HistoryEscalation &e = escalate(k, EscalationReason::AgentSawSuccess, run,
                                            QStringLiteral("no ticket and the upstream answered NOT_FOUND, but the intent log has 1 "
                                                           "SUCCEEDED attempt(s)"));
            saw(e, k, UpstreamAnswer::NotFound, QString());
            // An operator found the success was never delivered and marked it FAILED.
            const qint64 at = raised - between(3 * kHour, 20 * kHour);
            m_out.keys.audits.append(seedMark(m_rng, r, QString::fromLatin1(kOperators[m_operator++ % std::size(kOperators)]), Failed, at,
                                              QStringLiteral("the agent's success was never delivered: no ticket, upstream NOT_FOUND"),
                                              json({{QStringLiteral("ticket_ids"), QJsonArray()}})));
            byNextRun(e, run);
            break;
        }
        case S::DuplicateCompensated:
        case S::DuplicateResolved:
        case S::DuplicateOpen: {
            static const Biz *const biz[] = {&kTicket, &kPay, &kRefund, &kNotify};
            const Key k = newKey(*biz[m_serial % 4]);
            const std::optional<QString> amount = money(k) ? std::optional<QString>(amountFor(0)) : std::nullopt;
            addAttempt(k, QStringLiteral("UNKNOWN"), since + 45 * kSecond, title);
            addTicket(k, since + 43 * kSecond, title, amount);
            addAttempt(k, QStringLiteral("UNKNOWN"), since, title);
            SeedTicket &extra = addTicket(k, since - 2 * kSecond, title, amount);
            SeedRecord &r = addRecord(k, since);
            HistoryEscalation &e = escalate(k, EscalationReason::Duplicate, run, QString());
            e.amount = amount;
            e.currency = amount ? currencyOf(k.tenant) : QString();
            saw(e, k, UpstreamAnswer::Ambiguous, QString());
            e.note = QStringLiteral("%1: more than one side effect").arg(e.why);
            if (s == S::DuplicateOpen) {
                stillStale(e);
            } else if (s == S::DuplicateCompensated) {
                // The agents cancelled the extra ticket and settled the record themselves.
                const qint64 at = raised - between(kHour, 12 * kHour);
                addAttempt(k, QStringLiteral("COMPENSATED"), at, title);
                extra.status = QStringLiteral("CANCELLED");
                extra.updatedAgo = at - kSecond;
                settle(r, Success, at - 2 * kSecond, m_out.keys.tickets[m_out.keys.tickets.size() - 2].payload);
                byNextRun(e, run);
            } else {
                settle(r, Success, raised - 30 * kMinute, m_out.keys.tickets[m_out.keys.tickets.size() - 2].payload);
                byOperator(e, run, between(2 * kHour, 30 * kHour),
                           QStringLiteral("customer confirmed both tickets are one request; the second was closed in the ticket tool"));
                extra.status = QStringLiteral("CLOSED");
            }
            break;
        }
        case S::KeyReuseResolved:
        case S::KeyReuseOpen: {
            static const Biz *const biz[] = {&kTicket, &kPay, &kRefund};
            const Key k = newKey(*biz[m_serial % 3]);
            const bool m = money(k);
            addAttempt(k, QStringLiteral("UNKNOWN"), since + 20 * kMinute, title);
            const SeedTicket &first = addTicket(k, since + 20 * kMinute - 3 * kSecond, title, m ? std::optional<QString>(amountFor(0)) : std::nullopt);
            const QString firstPayload = first.payload;
            const QString other = QString::fromUtf8(kTitles[(m_serial + 2) % std::size(kTitles)]);
            addAttempt(k, QStringLiteral("UNKNOWN"), since, other);
            addTicket(k, since - 3 * kSecond, other, m ? std::optional<QString>(amountFor(1)) : std::nullopt);
            SeedRecord &r = addRecord(k, since);
            HistoryEscalation &e = escalate(k, EscalationReason::KeyReuse, run, QString());
            if (m) {
                e.amount = amountFor(0);
                e.currency = currencyOf(k.tenant);
            }
            saw(e, k, UpstreamAnswer::Ambiguous, QString());
            if (s == S::KeyReuseOpen) {
                stillStale(e);
            } else {
                settle(r, Success, raised - 4 * kHour, firstPayload);
                byOperator(e, run, between(5 * kHour, 40 * kHour),
                           QStringLiteral("two operations under one key: both tickets are real work; the agent's key builder is fixed"));
            }
            break;
        }
        case S::ContradictionResolved:
        case S::ContradictionOpen: {
            static const Biz *const biz[] = {&kTicket, &kNotify, &kPay};
            const Key k = newKey(*biz[m_serial % 3]);
            addAttempt(k, QStringLiteral("UNKNOWN"), since, title);
            const SeedTicket &t = addTicket(k, since - 2 * kSecond, title, money(k) ? std::optional<QString>(amountFor(0)) : std::nullopt);
            const QString payload = t.payload;
            const qint64 ticketId = t.id;
            SeedRecord &r = addRecord(k, since);
            HistoryEscalation &e = escalate(k, EscalationReason::Contradiction, run,
                                            QStringLiteral("one ticket carries the key but the upstream answered NOT_FOUND"));
            saw(e, k, UpstreamAnswer::NotFound, QString());
            if (s == S::ContradictionOpen) {
                settle(r, Success, raised - between(kHour, 6 * kHour), payload);
                break;
            }
            // The operator asks the upstream again (it has caught up), marks SUCCESS, resolves.
            byOperator(e, run, between(3 * kHour, 20 * kHour),
                       QStringLiteral("the upstream caught up: the ticket is found now; record marked SUCCESS from the ticket"));
            SeedAudit q = seedOperatorAudit(m_rng, k.key, e.resolvedBy, audit_action::QueryUpstream, e.resolvedAgo + 2 * kMinute,
                                            QStringLiteral("recorded"), QStringLiteral("contradiction: is the ticket there now?"));
            q.detail = json({{QStringLiteral("answer"), QStringLiteral("FOUND")}, {QStringLiteral("http_status"), 200}});
            m_out.keys.audits.append(q);
            m_out.keys.audits.append(seedMark(m_rng, r, e.resolvedBy, Success, e.resolvedAgo + kMinute,
                                              QStringLiteral("upstream shows the ticket now (it lagged)"),
                                              json({{QStringLiteral("ticket_ids"), QJsonArray{double(ticketId)}}})));
            r.snapshot = payload;
            break;
        }
        case S::AmountResolved:
        case S::AmountOpen: {
            const Key k = newKey(m_serial % 2 ? kPay : kRefund);
            const QString business = amountFor(0), captured = amountFor(3);
            addAttempt(k, QStringLiteral("UNKNOWN"), since, title);
            const SeedTicket &t = addTicket(k, since - 2 * kSecond, title, business);
            const QString payload = t.payload;
            const QString mismatch = QStringLiteral("amount %1 (ticket:%2) vs %3 (upstream)").arg(business).arg(t.id).arg(captured);
            SeedRecord &r = addRecord(k, since);
            QJsonObject upstream = QJsonDocument::fromJson(payload.toUtf8()).object();
            upstream.insert(QStringLiteral("amount"), captured);
            HistoryEscalation &e = escalate(k, EscalationReason::AmountMismatch, run, mismatch);
            e.amount = business;
            e.currency = currencyOf(k.tenant);
            saw(e, k, UpstreamAnswer::Found, json(upstream));
            e.why = QStringLiteral("%1, not applied: %2").arg(e.why, mismatch);
            // The agent settled it with what the upstream captured.
            settle(r, Success, raised - between(kHour, 8 * kHour), json(upstream));
            if (s == S::AmountResolved)
                byOperator(e, run, between(4 * kHour, 50 * kHour),
                           QStringLiteral("finance confirmed %1 %2 was captured; the difference is refunded (FIN-%3)")
                               .arg(captured, e.currency)
                               .arg(4100 + m_serial));
            break;
        }
        case S::ExternalResolved:
        case S::ExternalOpen: {
            const Key k = newKey(m_serial % 2 ? kRefund : kPay);
            addAttempt(k, QStringLiteral("UNKNOWN"), since, title);
            addAttempt(k, QStringLiteral("ESCALATED"), since - 15 * kMinute, title);
            SeedRecord &r = addRecord(k, since);
            HistoryEscalation &e = escalate(k, EscalationReason::External, run, QString()); // note: with the attempt id, when written
            e.externalSource = true;
            saw(e, k, UpstreamAnswer::NotFound, QString());
            if (s == S::ExternalOpen) {
                stillStale(e);
                break;
            }
            const qint64 at = raised - between(2 * kHour, 10 * kHour);
            settle(r, Success, at, addTicket(k, at + kMinute, title, amountFor(0)).payload);
            byOperator(e, run, between(6 * kHour, 30 * kHour),
                       QStringLiteral("settled with the agents' team: the payment went through, the ticket was created by hand"));
            break;
        }
        }
    }

    /// The claims operators hold now: two escalations and one key (the creation pass skips
    /// that key), and one claim that has run out.
    void addClaims()
    {
        auto find = [&](EscalationReason reason, HistoryEscalation::End end, int run) {
            for (qsizetype i = 0; i < m_out.escalations.size(); ++i) {
                const HistoryEscalation &e = m_out.escalations[i];
                if (e.reason == reason && e.end == end && e.raisedByRun == run)
                    return int(i);
            }
            return -1;
        };
        using End = HistoryEscalation::End;
        m_out.claims.append({ClaimScope::Escalation, find(EscalationReason::AmountMismatch, End::Open, 11), QStringLiteral("alice"), 25 * kMinute});
        m_out.claims.append({ClaimScope::Key, find(EscalationReason::Duplicate, End::Open, 7), QStringLiteral("bob"), 2 * kHour});
        m_out.claims.append({ClaimScope::Escalation, find(EscalationReason::Contradiction, End::Open, 5), QStringLiteral("carol"), 4 * kHour});
        m_out.claims.append({ClaimScope::Escalation, find(EscalationReason::External, End::Open, 9), QStringLiteral("dave"), 5 * kHour, 3600});
    }

    QRandomGenerator m_rng;
    qint64 m_nextTicket;
    int m_serial = 0;
    int m_operator = 0;
    EscalationHistory m_out;
};

} // namespace

EscalationHistory makeEscalationHistory(qint64 firstTicketId)
{
    return HistoryGenerator(firstTicketId).run();
}

} // namespace triage
