#include "Verdict.h"

#include "CanonicalTicket.h"
#include "JsonText.h"
#include "KeyDetailTypes.h"
#include "RecordStatus.h"
#include "TimeText.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

#include <algorithm>

namespace triage {

QString verdictName(VerdictKind v)
{
    switch (v) {
    case VerdictKind::Wait: return QStringLiteral("WAIT");
    case VerdictKind::Duplicate: return QStringLiteral("DUPLICATE");
    case VerdictKind::Unknown: return QStringLiteral("UNKNOWN");
    case VerdictKind::Success: return QStringLiteral("SUCCESS");
    case VerdictKind::Failed: return QStringLiteral("FAILED");
    }
    return QStringLiteral("UNKNOWN");
}

QString upstreamAnswerName(UpstreamAnswer a)
{
    switch (a) {
    case UpstreamAnswer::Found: return QStringLiteral("FOUND");
    case UpstreamAnswer::Ambiguous: return QStringLiteral("AMBIGUOUS");
    case UpstreamAnswer::NotFound: return QStringLiteral("NOT_FOUND");
    case UpstreamAnswer::Unusable: return QStringLiteral("UNUSABLE");
    case UpstreamAnswer::NotConfigured: return QStringLiteral("NOT_CONFIGURED");
    }
    return QStringLiteral("UNUSABLE");
}

UpstreamAnswer upstreamAnswerOf(const UpstreamEvidence &e)
{
    switch (e.classification) {
    case UpstreamClass::Found: return UpstreamAnswer::Found;
    case UpstreamClass::Ambiguous: return UpstreamAnswer::Ambiguous;
    case UpstreamClass::NotFound: return UpstreamAnswer::NotFound;
    case UpstreamClass::Unusable: return UpstreamAnswer::Unusable;
    case UpstreamClass::NotConfigured: return UpstreamAnswer::NotConfigured;
    }
    return UpstreamAnswer::Unusable;
}

QString attemptsFact(const QStringList &statuses, bool succeeded)
{
    if (statuses.isEmpty())
        return QStringLiteral("intent-log attempts: none");
    const QString tail = succeeded ? QStringLiteral("a SUCCEEDED attempt is present") : QStringLiteral("no SUCCEEDED attempt");
    if (statuses.size() <= kAttemptsListedInFull)
        return QStringLiteral("intent-log attempts: %1 (%2; %3)").arg(statuses.size()).arg(statuses.join(QStringLiteral(", ")), tail);
    QMap<QString, qsizetype> counts;
    for (const QString &st : statuses)
        ++counts[st];
    QVector<std::pair<QString, qsizetype>> byCount(counts.keyValueBegin(), counts.keyValueEnd());
    std::stable_sort(byCount.begin(), byCount.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    QStringList parts;
    for (const auto &[status, n] : byCount)
        parts.append(QStringLiteral("%1 %2").arg(n).arg(status));
    const QByteArray sha = QCryptographicHash::hash(statuses.join(QLatin1Char('\n')).toUtf8(), QCryptographicHash::Sha256).toHex();
    return QStringLiteral("intent-log attempts: %1 (%2; first %3, last %4; SHA-256 of the statuses oldest first, one per line: %5; %6)")
        .arg(statuses.size())
        .arg(parts.join(QStringLiteral(", ")), statuses.first(), statuses.last(), QString::fromLatin1(sha), tail);
}

Verdict suggestVerdict(const VerdictInput &in)
{
    Verdict v;
    const qsizetype tickets = in.tickets.size();
    bool succeeded = false, escalated = false;
    for (const QString &s : in.attemptStatuses) {
        succeeded = succeeded || s.trimmed().compare(QLatin1String("SUCCEEDED"), Qt::CaseInsensitive) == 0;
        escalated = escalated || s.trimmed().compare(QLatin1String("ESCALATED"), Qt::CaseInsensitive) == 0;
    }

    // The facts, in the table's order.
    QString record = in.recordStale ? QStringLiteral("record: stale (older than its processing timeout)")
                                    : QStringLiteral("record: not stale (younger than its processing timeout)");
    if (!in.recordNote.isEmpty())
        record += QStringLiteral(" — ") + in.recordNote;
    v.facts.append(record);
    QStringList ids;
    for (const VerdictTicket &t : in.tickets)
        ids.append(QStringLiteral("#%1").arg(t.id.text()));
    v.facts.append(tickets == 0 ? QStringLiteral("tickets with this key: 0")
                                : QStringLiteral("tickets with this key: %1 (%2)").arg(tickets).arg(ids.join(QStringLiteral(", "))));
    v.facts.append(attemptsFact(in.attemptStatuses, succeeded));
    QString upstream = QStringLiteral("upstream: ") + upstreamAnswerName(in.upstream);
    if (!in.upstreamNote.isEmpty())
        upstream += QStringLiteral(" — ") + in.upstreamNote;
    v.facts.append(upstream);

    auto set = [&](int row, VerdictKind kind, const QString &why) {
        v.row = row;
        v.kind = kind;
        v.why = why;
    };
    const UpstreamAnswer u = in.upstream;
    if (!in.recordStale) {
        set(1, VerdictKind::Wait, QStringLiteral("the original request may still be running"));
    } else if (tickets >= 2 || u == UpstreamAnswer::Ambiguous) {
        set(2, VerdictKind::Duplicate, QStringLiteral("more than one side effect: compensate extras, keep the canonical one"));
        if (tickets >= 1) {
            QVector<TicketRow> rows;
            for (const VerdictTicket &t : in.tickets) {
                TicketRow r;
                r.id = t.id;
                r.payload = t.payload;
                r.status = t.status;
                r.createdAt = t.createdAt;
                rows.append(r);
            }
            const CanonicalTicket c = canonicalTicket(rows, in.recordStatus, in.recordSnapshot);
            v.canonicalTicketId = c.id;
            v.facts.append(c.id ? QStringLiteral("canonical ticket: #%1 (%2)").arg(c.id->text()).arg(c.reason)
                                : QStringLiteral("canonical ticket: none (%1)").arg(c.reason));
            if (!c.inconsistency.isEmpty())
                v.facts.append(QStringLiteral("inconsistent: ") + c.inconsistency);
            v.keyReuseFields = keyReuseFields(rows);
            if (!v.keyReuseFields.isEmpty()) {
                v.why = QStringLiteral("key reuse, not a retry: the tickets' business payloads differ (%1), so they are "
                                       "different operations under one key — do not compensate without an override; escalate")
                            .arg(v.keyReuseFields.join(QStringLiteral(", ")));
                v.facts.append(QStringLiteral("key reuse: the business fields %1 differ between the tickets")
                                   .arg(v.keyReuseFields.join(QStringLiteral(", "))));
            } else if (c.id) {
                v.why = QStringLiteral("more than one side effect: compensate the extras, keep the canonical ticket #%1").arg(c.id->text());
            }
        }
    } else if (tickets == 1 && u == UpstreamAnswer::NotFound) {
        set(3, VerdictKind::Unknown, QStringLiteral("the two sources contradict: escalate"));
    } else if (tickets == 1) {
        set(4, VerdictKind::Success, QStringLiteral("snapshot from the ticket row"));
        v.snapshot = in.tickets.first().payload;
        v.snapshotSource = QStringLiteral("ticket:%1").arg(in.tickets.first().id.text());
        if (!v.snapshot)
            v.facts.append(QStringLiteral("the ticket's payload is NULL: no snapshot to write"));
    } else if (u == UpstreamAnswer::Found) {
        set(5, VerdictKind::Success, QStringLiteral("snapshot from the upstream object"));
        v.snapshot = in.upstreamObject;
        v.snapshotSource = QStringLiteral("upstream");
    } else if (u == UpstreamAnswer::NotFound && succeeded) {
        set(6, VerdictKind::Unknown, QStringLiteral("contradiction: the agent saw success"));
    } else if ((u == UpstreamAnswer::NotFound || in.ticketAbsentIsEvidence) && escalated) {
        set(6, VerdictKind::Unknown, QStringLiteral("the agent escalated this step: a human decides"));
    } else if (u == UpstreamAnswer::NotFound) {
        set(7, VerdictKind::Failed, QStringLiteral("confirmed no side effect: safe to retry"));
    } else if (in.ticketAbsentIsEvidence && !succeeded) {
        set(7, VerdictKind::Failed, QStringLiteral("confirmed no side effect: the biz_type's side effect is the ticket row "
                                                   "(failed_evidence = ticket_absent) and there is none"));
    } else {
        set(8, VerdictKind::Unknown, QStringLiteral("nothing definitive: query again later or escalate"));
    }
    v.reason = QStringLiteral("DESIGN.md §6 row %1 → %2: %3. Facts: %4.")
                   .arg(v.row)
                   .arg(verdictName(v.kind), v.why, v.facts.join(QStringLiteral("; ")));
    return v;
}

QByteArray Verdict::toJson(qsizetype maxTextBytes) const
{
    QJsonObject o;
    o.insert(QStringLiteral("verdict"), verdictName(kind));
    o.insert(QStringLiteral("row"), row);
    o.insert(QStringLiteral("why"), why);
    o.insert(QStringLiteral("facts"), QJsonArray::fromStringList(facts));
    o.insert(QStringLiteral("reason"), reason);
    o.insert(QStringLiteral("snapshot"), !snapshot            ? QJsonValue()
                                         : maxTextBytes < 0 ? QJsonValue(*snapshot)
                                                            : boundedJsonValue(snapshot->toUtf8(), maxTextBytes));
    o.insert(QStringLiteral("snapshot_source"), snapshotSource);
    o.insert(QStringLiteral("canonical_ticket_id"), canonicalTicketId ? canonicalTicketId->toJson() : QJsonValue());
    o.insert(QStringLiteral("key_reuse_fields"), QJsonArray::fromStringList(keyReuseFields));
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

VerdictInput verdictInputFrom(const KeyDetail &d, const UpstreamEvidence *evidence)
{
    VerdictInput in;
    if (!d.record) {
        in.recordStale = true;
        in.recordNote = QStringLiteral("no idempotency record with this key");
    } else {
        const RecordDetail &r = *d.record;
        const bool processing = r.statusCode && *r.statusCode == Processing;
        in.recordStale = !processing || r.stale;
        in.recordNote = QStringLiteral("%1, updated %2 ago, processing timeout %3 s")
                            .arg(r.statusText, humanDuration(r.ageSeconds))
                            .arg(r.processingTimeoutS);
        if (!processing)
            in.recordNote += QStringLiteral(" (not PROCESSING: nothing can still be running)");
    }
    in.ticketAbsentIsEvidence = d.record && d.record->failedEvidence == FailedEvidence::TicketAbsent;
    for (const TicketRow &t : d.tickets)
        in.tickets.append(VerdictTicket{t.id, t.payload, t.status, t.createdAt});
    if (d.record) {
        in.recordStatus = d.record->statusText;
        in.recordSnapshot = d.record->resultSnapshot;
    }
    for (const IntentAttempt &a : d.attempts)
        in.attemptStatuses.append(a.status.value_or(QStringLiteral("NULL")));
    if (!evidence) {
        in.upstream = UpstreamAnswer::NotConfigured;
        in.upstreamNote = QStringLiteral("not queried");
    } else {
        in.upstream = upstreamAnswerOf(*evidence);
        in.upstreamNote = evidence->message;
        if (in.upstream == UpstreamAnswer::Found && !evidence->foundObjects.isEmpty())
            in.upstreamObject = evidence->foundObjects.first();
        if (in.upstream == UpstreamAnswer::Found && !evidence->foundObjectsExact)
            in.upstreamNote += QStringLiteral(" (object re-serialised, not byte-exact: check the raw body before using it as a snapshot)");
    }
    return in;
}

} // namespace triage
