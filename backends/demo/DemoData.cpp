#include "DemoData.h"

#include "AuditEntry.h"
#include "CompensationKeys.h"
#include "CompensationPlan.h"
#include "Log.h"
#include "RecordStatus.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlQuery>

#include <functional>

namespace triage {

namespace {

constexpr qint64 kSecond = 1000000;
constexpr qint64 kMinute = 60 * kSecond;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;

enum class Case {
    Success, Failed, StaleFound, StaleNothing, StaleDuplicate, Fresh, Escalated, Compensated, SuccessDuplicate
};

struct BizSpec {
    const char *bizType;
    const char *keyPrefix; ///< "" = task-style keys without a tenant
    const char *action;
};

const BizSpec kBiz[] = {
    {"ticket_create", "ticket:create:", "create_ticket"},
    {"payment_capture", "pay:capture:", "capture_payment"},
    {"refund_issue", "refund:issue:", "issue_refund"},
    {"notify_send", "", "send_notification"},
};

const char *const kTenants[] = {"acme", "globex", "initech", "umbrella", "zürich"};

const char *const kTitles[] = {
    "VPN outage in Frankfurt office", "Printer queue stuck", "Laptop replacement for new hire",
    "Störung: Mailserver antwortet nicht", "東京オフィスのネットワーク遅延", "Refund for double charge",
    "Password reset loop", "Disk almost full on db-03", "Café POS terminal offline", "Access request: billing dashboard",
};

QString json(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

class Generator {
public:
    explicit Generator(const SeedOptions &o) : m_rng(o.seed), m_nextTicket(o.firstTicketId), m_opts(o) {}

    SeedPlan run()
    {
        if (m_opts.records > 0) {
            for (int i = 0; i < m_opts.records; ++i)
                makeCase(pickScaleCase(), i);
        } else {
            makeDemoSet();
        }
        return m_plan;
    }

private:
    qint64 between(qint64 lo, qint64 hi) { return lo + qint64(m_rng.bounded(double(hi - lo))); }
    template <typename T, size_t N>
    const T &pick(const T (&a)[N]) { return a[m_rng.bounded(int(N))]; }

    QString uuid() { return seedUuid(m_rng); }

    Case pickScaleCase()
    {
        // 2 % stale PROCESSING, 1 % in flight, 0.1 % duplicated keys (production-like proportions).
        const int r = int(m_rng.bounded(10000));
        if (r < 50) return Case::StaleFound;
        if (r < 150) return Case::StaleNothing;
        if (r < 160) return Case::StaleDuplicate;
        if (r < 200) return Case::Escalated;
        if (r < 300) return Case::Fresh;
        if (r < 1900) return Case::Failed;
        if (r < 1910) return Case::Compensated;
        return Case::Success;
    }

    void makeDemoSet()
    {
        const std::pair<Case, int> mix[] = {
            {Case::Success, 80}, {Case::Failed, 30},         {Case::StaleFound, 25}, {Case::StaleNothing, 35},
            {Case::StaleDuplicate, 10}, {Case::Fresh, 25},   {Case::Escalated, 15},  {Case::Compensated, 8},
            {Case::SuccessDuplicate, 4},
        };
        int n = 0;
        for (const auto &[c, count] : mix)
            for (int i = 0; i < count; ++i)
                makeCase(c, n++);
        makeSpecialCases(n);
        makeOutage(1000);
    }

    struct Key {
        const BizSpec *biz;
        QString tenant;
        QString key;
        QString taskId;
    };

    Key newKey(int n)
    {
        Key k;
        k.biz = &kBiz[m_rng.bounded(int(std::size(kBiz)))];
        k.tenant = QString::fromUtf8(pick(kTenants));
        // The seed is part of the task id (and so of task-style keys): two seeds into one
        // database never collide (DESIGN.md §10 "seed-demo").
        k.taskId = QStringLiteral("task_%1_%2").arg(m_opts.seed).arg(100000 + n);
        if (*k.biz->keyPrefix)
            k.key = QString::fromLatin1(k.biz->keyPrefix) + k.tenant + QLatin1Char(':') + uuid();
        else
            k.key = QStringLiteral("%1_step_%2_%3").arg(k.taskId).arg(1 + n % 5).arg(QString::fromLatin1(k.biz->action));
        return k;
    }

    /// The ticket's payload: `ticketId` names the ticket; the business fields (title,
    /// priority, amount) follow `businessId`, so a retry's ticket carries the same operation.
    QString payloadFor(const Key &k, qint64 ticketId, const QString &title, qint64 businessId)
    {
        QJsonObject o;
        o[QStringLiteral("ticket_id")] = ticketIdJson(ticketId);
        o[QStringLiteral("tenant")] = k.tenant;
        o[QStringLiteral("title")] = title;
        o[QStringLiteral("priority")] = QStringList{QStringLiteral("P1"), QStringLiteral("P2"), QStringLiteral("P3")}.at(int(businessId % 3));
        if (QLatin1String(k.biz->bizType) == QLatin1String("payment_capture") || QLatin1String(k.biz->bizType) == QLatin1String("refund_issue")) {
            o[QStringLiteral("amount")] = QStringLiteral("%1.%2").arg(10 + businessId % 490).arg(businessId % 100, 2, 10, QLatin1Char('0'));
            o[QStringLiteral("currency")] = QStringLiteral("EUR");
        }
        return json(o);
    }

    /// A ticket carrying `k`; with `retryOf`, a retry of that ticket's operation (same
    /// title and business fields: a duplicate, not key reuse; DESIGN.md §6).
    SeedTicket addTicket(const Key &k, qint64 createdAgo, const QString &status, const SeedTicket *retryOf = nullptr)
    {
        SeedTicket t;
        t.id = m_nextTicket++;
        t.idemKey = k.key;
        t.tenant = k.tenant;
        t.title = QString::fromUtf8(pick(kTitles));
        if (retryOf)
            t.title = retryOf->title;
        // The attempts of this key since its previous ticket asked for this ticket: their
        // requests carry its title (a retry repeats its request; a reused key's new operation
        // asks for its own ticket).
        for (int i : m_attemptsSinceTicket.take(k.key))
            setRequestTitle(m_plan.intents[i], t.title);
        t.status = status;
        t.payload = payloadFor(k, t.id, t.title, retryOf ? retryOf->id : t.id);
        t.createdAgo = createdAgo;
        t.updatedAgo = status == QLatin1String("OPEN") ? createdAgo : qMax<qint64>(0, createdAgo - between(kMinute, kHour));
        m_plan.tickets.append(t);
        return t;
    }

    SeedIntent &addAttempt(const Key &k, int step, const QString &status, qint64 createdAgo, qint64 latency)
    {
        SeedIntent a;
        a.taskId = k.taskId;
        a.stepId = QStringLiteral("step_%1").arg(step);
        a.action = QString::fromLatin1(k.biz->action);
        a.idemKey = k.key;
        a.status = status;
        a.actor = QStringLiteral("agent-%1").arg(1 + m_rng.bounded(4));
        QJsonObject req;
        req[QStringLiteral("tenant")] = k.tenant;
        req[QStringLiteral("idempotency_key")] = k.key;
        req[QStringLiteral("title")] = QString::fromUtf8(pick(kTitles));
        a.request = json(req);
        QJsonObject before;
        before[QStringLiteral("task")] = k.taskId;
        before[QStringLiteral("ticket_count")] = 0;
        before[QStringLiteral("state")] = QStringLiteral("pending");
        a.stateBefore = json(before);
        a.createdAgo = createdAgo;
        a.updatedAgo = status == QLatin1String("INTENT") ? createdAgo : qMax<qint64>(0, createdAgo - latency);
        if (status == QLatin1String("SUCCEEDED") || status == QLatin1String("COMPENSATED")) {
            a.response = QStringLiteral("{\"ok\":true,\"status\":201}");
            QJsonObject after = before;
            after[QStringLiteral("ticket_count")] = 1;
            after[QStringLiteral("state")] = QStringLiteral("done");
            a.stateAfter = json(after);
        } else if (status == QLatin1String("FAILED")) {
            a.response = QStringLiteral("{\"ok\":false,\"status\":422,\"code\":\"INVALID_TENANT\"}");
            a.error = QStringLiteral("HTTP 422: tenant is suspended");
            a.stateAfter = a.stateBefore;
        } else if (status == QLatin1String("UNKNOWN") || status == QLatin1String("RECONCILE_PENDING")) {
            a.error = m_rng.bounded(2) ? QStringLiteral("timeout after 30000 ms waiting for upstream reply")
                                       : QStringLiteral("connection reset by peer after request was sent");
        } else if (status == QLatin1String("ESCALATED")) {
            a.error = QStringLiteral("reconciliation: amount in upstream (129.00) differs from intent (192.00)");
        }
        m_plan.intents.append(a);
        m_attemptsSinceTicket[k.key].append(int(m_plan.intents.size() - 1));
        return m_plan.intents.last();
    }

    /// `a`'s request with its "title" replaced by `title` (the ticket it asked for).
    static void setRequestTitle(SeedIntent &a, const QString &title)
    {
        if (!a.request)
            return;
        QJsonObject req = QJsonDocument::fromJson(a.request->toUtf8()).object();
        if (req.isEmpty())
            return;
        req[QStringLiteral("title")] = title;
        a.request = json(req);
    }

    void addRecord(const Key &k, int status, qint64 createdAgo, qint64 updatedAgo, const std::optional<QString> &snapshot)
    {
        SeedRecord r;
        r.idemKey = k.key;
        r.bizType = QString::fromLatin1(k.biz->bizType);
        r.tenant = k.tenant;
        r.status = status;
        r.snapshot = snapshot;
        r.createdAgo = createdAgo;
        r.updatedAgo = updatedAgo;
        r.expireAgo = createdAgo - (m_rng.bounded(3) == 0 ? 30 : 7) * kDay;
        m_plan.records.append(r);
    }

    qint64 staleAge() { return between(10 * kMinute + 0, 3 * kDay); }

    void makeCase(Case c, int n)
    {
        const Key k = newKey(n);
        const int step = 1 + n % 5;
        switch (c) {
        case Case::Success: {
            const qint64 created = between(kMinute, 6 * kDay);
            const qint64 latency = between(200000, 3 * kSecond);
            if (m_rng.bounded(4) == 0) { // a timeout, then a retry with the same key
                addAttempt(k, step, QStringLiteral("UNKNOWN"), created + 2 * kMinute, 30 * kSecond);
            }
            addAttempt(k, step, QStringLiteral("SUCCEEDED"), created + 50000, latency);
            const SeedTicket t = addTicket(k, created - latency / 2, m_rng.bounded(3) ? QStringLiteral("OPEN") : QStringLiteral("CLOSED"));
            addRecord(k, Success, created, created - latency, t.payload);
            break;
        }
        case Case::SuccessDuplicate: {
            const qint64 created = between(kHour, 3 * kDay);
            addAttempt(k, step, QStringLiteral("UNKNOWN"), created + 5 * kMinute, 30 * kSecond);
            const SeedTicket first = addTicket(k, created + 5 * kMinute - 2 * kSecond, QStringLiteral("OPEN"));
            addAttempt(k, step, QStringLiteral("SUCCEEDED"), created + 50000, kSecond);
            addTicket(k, created - kSecond / 2, QStringLiteral("OPEN"), &first);
            addRecord(k, Success, created, created - kSecond, first.payload);
            break;
        }
        case Case::Failed: {
            const qint64 created = between(kMinute, 6 * kDay);
            addAttempt(k, step, QStringLiteral("FAILED"), created + 50000, between(100000, kSecond));
            addRecord(k, Failed, created, created - kSecond, std::nullopt);
            break;
        }
        case Case::StaleFound: {
            const qint64 updated = staleAge();
            addAttempt(k, step, QStringLiteral("UNKNOWN"), updated + 100000, 30 * kSecond);
            addTicket(k, updated - 4 * kSecond, QStringLiteral("OPEN"));
            addRecord(k, Processing, updated, updated, std::nullopt);
            break;
        }
        case Case::StaleNothing: {
            const qint64 updated = staleAge();
            addAttempt(k, step, n % 3 == 0 ? QStringLiteral("RECONCILE_PENDING") : QStringLiteral("UNKNOWN"), updated + 100000,
                       30 * kSecond);
            addRecord(k, Processing, updated, updated, std::nullopt);
            break;
        }
        case Case::StaleDuplicate: {
            const qint64 updated = staleAge();
            // The agent retried after timeouts; the ticket table had no backstop.
            addAttempt(k, step, QStringLiteral("UNKNOWN"), updated + 100000, 30 * kSecond);
            const SeedTicket first = addTicket(k, updated - 3 * kSecond, QStringLiteral("OPEN"));
            addAttempt(k, step, QStringLiteral("UNKNOWN"), updated - 45 * kSecond, 30 * kSecond);
            addTicket(k, updated - 48 * kSecond, QStringLiteral("OPEN"), &first);
            if (n % 2 == 0) {
                addAttempt(k, step, QStringLiteral("RECONCILE_PENDING"), updated - 2 * kMinute, 30 * kSecond);
                addTicket(k, updated - 2 * kMinute - 3 * kSecond, QStringLiteral("OPEN"), &first);
            }
            addRecord(k, Processing, updated, updated, std::nullopt);
            break;
        }
        case Case::Fresh: {
            const qint64 updated = between(kSecond, 4 * kMinute);
            addAttempt(k, step, QStringLiteral("INTENT"), updated - 20000, 0);
            addRecord(k, Processing, updated, updated, std::nullopt);
            break;
        }
        case Case::Escalated: {
            const qint64 updated = staleAge();
            addAttempt(k, step, QStringLiteral("UNKNOWN"), updated + 100000, 30 * kSecond);
            SeedIntent &esc = addAttempt(k, step, QStringLiteral("ESCALATED"), updated - 15 * kMinute, kSecond);
            esc.actor = QStringLiteral("reconciler");
            addRecord(k, Processing, updated, updated, std::nullopt);
            break;
        }
        case Case::Compensated: {
            const qint64 created = between(kDay, 5 * kDay);
            addAttempt(k, step, QStringLiteral("UNKNOWN"), created + 3 * kMinute, 30 * kSecond);
            const SeedTicket extra = addTicket(k, created + 3 * kMinute - kSecond, QStringLiteral("CANCELLED"));
            addAttempt(k, step, QStringLiteral("COMPENSATED"), created + 50000, kSecond);
            const SeedTicket kept = addTicket(k, created - kSecond / 2, QStringLiteral("OPEN"), &extra);
            addRecord(k, Success, created, created - kHour, kept.payload);
            break;
        }
        }
    }

    void makeSpecialCases(int n)
    {
        // A status code the console does not know (must show as UNKNOWN_CODE_7).
        {
            Key k = newKey(n++);
            addRecord(k, 7, 2 * kHour, 2 * kHour, std::nullopt);
            addAttempt(k, 1, QStringLiteral("UNKNOWN"), 2 * kHour + kSecond, 30 * kSecond);
        }
        // A SUCCESS record whose snapshot is not valid JSON (truncated).
        {
            Key k = newKey(n++);
            const SeedTicket t = addTicket(k, 3 * kHour, QStringLiteral("OPEN"));
            addAttempt(k, 1, QStringLiteral("SUCCEEDED"), 3 * kHour + kSecond, kSecond);
            addRecord(k, Success, 3 * kHour, 3 * kHour - kSecond, t.payload.left(t.payload.size() / 2));
        }
        // Stale PROCESSING records about to be reaped, and one whose expire_at precedes created_at.
        for (int i = 0; i < 3; ++i) {
            Key k = newKey(n++);
            addAttempt(k, 1, QStringLiteral("UNKNOWN"), 7 * kDay - (2 + i) * kHour + kSecond, 30 * kSecond);
            addRecord(k, Processing, 7 * kDay - (2 + i) * kHour, 7 * kDay - (2 + i) * kHour, std::nullopt);
            m_plan.records.last().expireAgo = -(i + 1) * kHour + (i == 2 ? 8 * kDay : 0);
        }
        // Several attempts for one step, NULL columns, and a regenerated key: the agent
        // built a new key per retry (the seeds' commonest mistake).
        {
            Key k = newKey(n++);
            const qint64 t0 = 40 * kMinute;
            for (int attempt = 0; attempt < 3; ++attempt) {
                Key retry = k;
                retry.key = QStringLiteral("%1:attempt%2").arg(k.key.left(55)).arg(attempt + 1);
                SeedIntent &a = addAttempt(retry, 2, QStringLiteral("UNKNOWN"), t0 - attempt * 2 * kMinute, 30 * kSecond);
                if (attempt == 1) {
                    a.actor.reset();
                    a.stateAfter.reset();
                    a.response.reset();
                }
                addRecord(retry, Processing, t0 - attempt * 2 * kMinute, t0 - attempt * 2 * kMinute, std::nullopt);
            }
        }
        // Key reuse: one key used for two different operations ("Disk almost full" and "VPN
        // outage"), not a retry: no compensation without an override (DESIGN.md §6).
        {
            Key k = newKey(n++);
            const qint64 updated = 2 * kDay;
            addAttempt(k, 1, QStringLiteral("UNKNOWN"), updated + 100000, 30 * kSecond);
            SeedTicket disk = addTicket(k, updated - 3 * kSecond, QStringLiteral("OPEN"));
            disk.title = QStringLiteral("Disk almost full on db-03");
            disk.payload = payloadFor(k, disk.id, disk.title, disk.id);
            m_plan.tickets.last() = disk;
            addAttempt(k, 2, QStringLiteral("UNKNOWN"), updated - 10 * kMinute, 30 * kSecond);
            SeedTicket vpn = addTicket(k, updated - 10 * kMinute - 3 * kSecond, QStringLiteral("OPEN"));
            vpn.title = QStringLiteral("VPN outage in Frankfurt office");
            vpn.payload = payloadFor(k, vpn.id, vpn.title, vpn.id);
            m_plan.tickets.last() = vpn;
            addRecord(k, Processing, updated, updated, std::nullopt);
        }
        // One key with many attempts of the same step and every status on its way.
        {
            Key k = newKey(n++);
            const QStringList path = {QStringLiteral("UNKNOWN"), QStringLiteral("UNKNOWN"), QStringLiteral("RECONCILE_PENDING"),
                                      QStringLiteral("ESCALATED"), QStringLiteral("UNKNOWN")};
            for (int i = 0; i < path.size(); ++i)
                addAttempt(k, 3, path[i], 5 * kHour - i * 20 * kMinute, 30 * kSecond);
            addTicket(k, 5 * kHour - 3 * kSecond, QStringLiteral("OPEN"));
            addRecord(k, Processing, 5 * kHour, 5 * kHour, std::nullopt);
        }
    }

    QString ticketIdText(qint64 id) const { return m_opts.textTicketIds ? seedTicketIdText(id) : QString::number(id); }
    QJsonValue ticketIdJson(qint64 id) const { return m_opts.textTicketIds ? QJsonValue(seedTicketIdText(id)) : QJsonValue(double(id)); }

    SeedAudit &addAudit(const QString &key, const char *op, const char16_t *action, qint64 atAgo, const QString &outcome,
                        const QString &reason)
    {
        m_plan.audits.append(seedOperatorAudit(m_rng, key, QString::fromLatin1(op), action, atAgo, outcome, reason));
        return m_plan.audits.last();
    }

    void addMark(SeedRecord &r, const char *op, RecordStatusCode to, qint64 atAgo, const QString &reason, const QString &evidence)
    {
        m_plan.audits.append(seedMark(m_rng, r, QString::fromLatin1(op), to, atAgo, reason, evidence));
    }

    /// The outage (kDemoOutageStartAgo .. kDemoOutageEndAgo): the ticket service timed out
    /// for 30 minutes; agents retried; operators settled part of it afterwards.
    void makeOutage(int n)
    {
        const BizSpec *ticketCreate = &kBiz[0];
        auto outageKey = [&](int i) {
            Key k = newKey(n + i);
            k.biz = ticketCreate;
            k.key = QStringLiteral("ticket:create:") + k.tenant + QLatin1Char(':') + uuid();
            return k;
        };
        auto callAt = [&] { return between(kDemoOutageEndAgo + kMinute, kDemoOutageStartAgo - kMinute); };
        // Timed out after the ticket service had created the ticket; the retry with the same
        // key created it again (no backstop). 12 keys: 5 marked SUCCESS by alice after an
        // upstream query, the duplicate of the first compensated by bob, bob's late mark of
        // the second a conflict; 7 still PROCESSING with their duplicates.
        for (int i = 0; i < 12; ++i) {
            const Key k = outageKey(i);
            // The compensated key is the outage's first call (not the newest duplicate group).
            const qint64 t = i == 0 ? kDemoOutageStartAgo - 30 * kSecond : callAt();
            addAttempt(k, 1, QStringLiteral("UNKNOWN"), t, 30 * kSecond);
            const SeedTicket first = addTicket(k, t - 2 * kSecond, QStringLiteral("OPEN"));
            addAttempt(k, 1, QStringLiteral("UNKNOWN"), t - 40 * kSecond, 30 * kSecond);
            const SeedTicket extra = addTicket(k, t - 42 * kSecond, QStringLiteral("OPEN"), &first);
            addRecord(k, Processing, t, t, std::nullopt);
            if (i >= 5)
                continue;
            const qint64 markAgo = 20 * kMinute - i * 2 * kMinute;
            SeedAudit &q = addAudit(k.key, "alice", audit_action::QueryUpstream, markAgo + 40 * kSecond, QStringLiteral("recorded"),
                                    QStringLiteral("outage clean-up: is the ticket there?"));
            q.detail = json({{QStringLiteral("answer"), QStringLiteral("FOUND")}, {QStringLiteral("http_status"), 200}});
            addMark(m_plan.records.last(), "alice", Success, markAgo,
                    QStringLiteral("ticket service outage: upstream shows the ticket was created"),
                    json({{QStringLiteral("ticket_ids"), QJsonArray{ticketIdJson(first.id), ticketIdJson(extra.id)}}}));
            m_plan.records.last().snapshot = first.payload;
            if (i == 0)
                addCompensation(k, extra, markAgo - 3 * kMinute);
            if (i == 1) {
                SeedAudit &c = addAudit(k.key, "bob", audit_action::MarkSuccess, markAgo - 30 * kSecond, QStringLiteral("conflict"),
                                        QStringLiteral("ticket service outage: ticket exists upstream"));
                c.fromState = json({{QStringLiteral("status"), QStringLiteral("PROCESSING")}, {QStringLiteral("status_code"), 0}});
                c.fromUpdatedAgo = t; // bob saw the record as it was before alice's mark
                c.toState = json({{QStringLiteral("status"), QStringLiteral("SUCCESS")}, {QStringLiteral("status_code"), 1}});
                c.detail = QStringLiteral("the record is SUCCESS now (changed by alice)");
            }
        }
        // Timed out before anything was created, most in the outage's first 12 minutes (the
        // burst): 30 keys, 6 marked FAILED by carol (stale and no ticket is proof for
        // ticket_create), 24 still PROCESSING.
        for (int i = 0; i < 30; ++i) {
            const Key k = outageKey(100 + i);
            const qint64 t = between(kDemoOutageStartAgo - 12 * kMinute, kDemoOutageStartAgo - 20 * kSecond);
            addAttempt(k, 1, QStringLiteral("UNKNOWN"), t, 30 * kSecond);
            addRecord(k, Processing, t, t, std::nullopt);
            if (i < 6)
                addMark(m_plan.records.last(), "carol", Failed, 12 * kMinute - i * kMinute,
                        QStringLiteral("ticket service outage: no ticket carries the key"),
                        json({{QStringLiteral("ticket_ids"), QJsonArray{}}}));
        }
        // An agent that built a new key per retry (3 tasks x 3 keys): the service created a
        // ticket for the first two tries of each, under different keys. All still open.
        for (int task = 0; task < 3; ++task) {
            const Key base = outageKey(200 + task);
            const qint64 t = callAt();
            SeedTicket firstTicket;
            for (int attempt = 0; attempt < 3; ++attempt) {
                Key retry = base;
                retry.key = QStringLiteral("%1:attempt%2").arg(base.key.left(55)).arg(attempt + 1);
                const qint64 at = t - attempt * 45 * kSecond;
                addAttempt(retry, 1, QStringLiteral("UNKNOWN"), at, 30 * kSecond);
                if (attempt < 2) {
                    const SeedTicket made = addTicket(retry, at - 3 * kSecond, QStringLiteral("OPEN"), attempt ? &firstTicket : nullptr);
                    if (attempt == 0)
                        firstTicket = made;
                }
                addRecord(retry, Processing, at, at, std::nullopt);
            }
        }
        // Calls that got through, slowly: 6 keys SUCCESS.
        for (int i = 0; i < 6; ++i) {
            const Key k = outageKey(300 + i);
            const qint64 t = callAt();
            const qint64 latency = between(18 * kSecond, 29 * kSecond);
            addAttempt(k, 1, QStringLiteral("SUCCEEDED"), t, latency);
            const SeedTicket made = addTicket(k, t - latency + kSecond, QStringLiteral("OPEN"));
            addRecord(k, Success, t, t - latency, made.payload);
        }
    }

    /// bob cancels `extra` (a duplicate of `k`) through the demo's compensation (DESIGN.md §1):
    /// the intent, the call and its confirmation, the audit row; the ticket is CANCELLED.
    void addCompensation(const Key &k, const SeedTicket &extra, qint64 atAgo)
    {
        SeedCompensation c;
        c.action = QStringLiteral("cancel_ticket");
        c.target = ticketIdText(extra.id);
        c.compKey = compensationKey(c.action, c.target, k.key);
        c.sourceKey = k.key;
        c.bizType = QString::fromLatin1(k.biz->bizType);
        c.ticketId = extra.id;
        CompensationHttpRequest req;
        req.url = QStringLiteral("/tickets/%1/cancel").arg(c.target);
        req.headers.append({QByteArrayLiteral("X-Idempotency-Key"), c.compKey.toUtf8()});
        req.body = QStringLiteral("{\"reason\":\"duplicate of %1\"}").arg(k.key).toUtf8();
        req.confirmUrl = QStringLiteral("/tickets/%1").arg(c.target);
        c.request = QString::fromUtf8(req.toJson());
        c.status = QStringLiteral("SUCCEEDED");
        c.operatorName = QStringLiteral("bob");
        c.reason = QStringLiteral("duplicate ticket from the outage retry");
        c.response = QStringLiteral("{\"status\":\"CANCELLED\",\"ticket_id\":\"%1\"}").arg(c.target);
        c.createdAgo = atAgo;
        c.updatedAgo = atAgo - 2 * kSecond;
        c.attempts = {{QStringLiteral("send"), QStringLiteral("SUCCEEDED"), c.response, 200, atAgo - kSecond},
                      {QStringLiteral("confirm"), QStringLiteral("CONFIRMED"), c.response, 200, atAgo - 2 * kSecond}};
        m_plan.compensations.append(c);
        for (SeedTicket &t : m_plan.tickets)
            if (t.id == extra.id)
                t.status = QStringLiteral("CANCELLED"), t.updatedAgo = atAgo - kSecond;
        SeedAudit &a = addAudit(k.key, "bob", audit_action::Compensate, atAgo - 2 * kSecond, QStringLiteral("applied"), c.reason);
        a.detail = json({{QStringLiteral("comp_key"), c.compKey}, {QStringLiteral("target"), c.target}});
        a.ticketId = extra.id;
    }

    QRandomGenerator m_rng;
    qint64 m_nextTicket;
    SeedOptions m_opts;
    SeedPlan m_plan;
    QHash<QString, QVector<int>> m_attemptsSinceTicket; ///< key → indexes into m_plan.intents since its last ticket
};

} // namespace

SeedPlan makeSeedPlan(const SeedOptions &options)
{
    return Generator(options).run();
}

void dropKeys(SeedPlan &plan, const QSet<QString> &keys)
{
    if (keys.isEmpty())
        return;
    plan.records.removeIf([&](const SeedRecord &r) { return keys.contains(r.idemKey); });
    plan.tickets.removeIf([&](const SeedTicket &t) { return keys.contains(t.idemKey); });
    plan.intents.removeIf([&](const SeedIntent &a) { return keys.contains(a.idemKey); });
    plan.audits.removeIf([&](const SeedAudit &a) { return keys.contains(a.idemKey); });
    plan.compensations.removeIf([&](const SeedCompensation &c) { return keys.contains(c.sourceKey); });
}

qint64 keepBizType(SeedPlan &plan, const QString &bizType)
{
    QSet<QString> others;
    for (const SeedRecord &r : std::as_const(plan.records))
        if (r.bizType != bizType)
            others.insert(r.idemKey);
    const qint64 before = plan.records.size();
    dropKeys(plan, others);
    return before - plan.records.size();
}

QMap<QString, BizTypeConfig> demoBizTypes()
{
    QMap<QString, BizTypeConfig> m;
    // Creating a ticket has the ticket row as its side effect, and the demo's tickets always
    // carry the key: stale and no ticket proves absence (DESIGN.md §6, failed_evidence).
    m.insert(QStringLiteral("ticket_create"), {300, QStringLiteral("ticket:create:{tenant}"), FailedEvidence::TicketAbsent});
    m.insert(QStringLiteral("payment_capture"), {600, QStringLiteral("pay:capture:{tenant}")});
    m.insert(QStringLiteral("refund_issue"), {600, QStringLiteral("refund:issue:{tenant}")});
    m.insert(QStringLiteral("notify_send"), {120, QStringLiteral("*:*:{tenant}")});
    return m;
}


CompensationConfigs demoCompensations(const QString &base)
{
    CompensationConfigs out;
    for (const QString &bizType : demoBizTypes().keys()) {
        CompensationActionConfig c;
        c.bizType = bizType;
        c.action = QStringLiteral("cancel_ticket");
        c.baseUrl = base;
        c.urlTemplate = QStringLiteral("/tickets/{ticket_id}/cancel");
        c.bodyTemplate = QStringLiteral("{\"reason\":\"duplicate of {idem_key}\"}");
        c.confirmUrlTemplate = QStringLiteral("/tickets/{ticket_id}");
        c.timeoutMs = 5000;
        out[bizType].insert(c.action, c);
    }
    return out;
}

} // namespace triage
