#include "CanonicalTicket.h"

#include "JsonText.h"
#include "RawJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace triage {

namespace {

bool isCancelled(const TicketRow &t)
{
    return t.status.value_or(QString()).trimmed().compare(QLatin1String("CANCELLED"), Qt::CaseInsensitive) == 0;
}

/// Earlier by (created_at, id); created_at is canonical ISO UTC text, so text order is time order.
bool earlier(const TicketRow &a, const TicketRow &b)
{
    return a.createdAt != b.createdAt ? a.createdAt < b.createdAt : a.id < b.id;
}

const TicketRow *earliestLive(const QVector<TicketRow> &tickets)
{
    const TicketRow *best = nullptr;
    for (const TicketRow &t : tickets)
        if (!isCancelled(t) && (!best || earlier(t, *best)))
            best = &t;
    return best;
}

/// Compact JSON text of one value (for comparing field values).
QString valueText(const QJsonValue &v)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
}

} // namespace

std::optional<BusinessId> snapshotNamedTicketId(const std::optional<QString> &snapshot)
{
    if (!snapshot)
        return std::nullopt;
    const ParsedJson p = parseJsonText(*snapshot);
    if (!p.ok || !p.root.isObject())
        return std::nullopt;
    const QByteArray bytes = snapshot->toUtf8();
    const std::optional<RawSpan> span = rawjson::find(bytes, {QStringLiteral("ticket_id")});
    if (!span)
        return std::nullopt;
    const QByteArray raw = span->slice(bytes);
    const char k = rawjson::kind(bytes, *span);
    if (k == '-' || (k >= '0' && k <= '9')) {
        // An integer literal as written; a fraction or an exponent names no ticket.
        if (raw.contains('.') || raw.contains('e') || raw.contains('E'))
            return std::nullopt;
        return BusinessId(QString::fromLatin1(raw));
    }
    if (k == '"') {
        // The string's exact value (escapes decoded; strings never go through a double).
        const QJsonValue v = QJsonDocument::fromJson("[" + raw + "]").array().at(0);
        if (v.isString() && !v.toString().isEmpty())
            return BusinessId(v.toString());
    }
    return std::nullopt;
}

CanonicalTicket canonicalTicket(const QVector<TicketRow> &tickets, const QString &recordStatus,
                                const std::optional<QString> &resultSnapshot)
{
    CanonicalTicket c;
    if (recordStatus == QLatin1String("SUCCESS"))
        c.snapshotTicketId = snapshotNamedTicketId(resultSnapshot);
    if (c.snapshotTicketId) {
        const auto named = std::find_if(tickets.cbegin(), tickets.cend(), [&](const TicketRow &t) { return t.id == *c.snapshotTicketId; });
        if (named != tickets.cend()) {
            c.id = named->id;
            c.basis = CanonicalTicket::Basis::SnapshotNames;
            c.reason = QStringLiteral("the SUCCESS record's snapshot names ticket #%1 (callers were given it)").arg(named->id.text());
            if (isCancelled(*named)) {
                c.snapshotTicketCancelled = true;
                c.inconsistency = QStringLiteral("the SUCCESS snapshot names ticket #%1, which is CANCELLED: callers hold a ticket "
                                                 "that was undone. SUCCESS is final: escalate to the ticket system's owners; "
                                                 "never re-mark the record")
                                      .arg(named->id.text());
            }
            return c;
        }
        c.snapshotTicketMissing = true;
        c.inconsistency = QStringLiteral("the SUCCESS snapshot names ticket #%1, which does not carry this key (or no longer "
                                         "exists): callers hold a ticket that is not here. SUCCESS is final: escalate to the "
                                         "ticket system's owners; never re-mark the record")
                              .arg(c.snapshotTicketId->text());
    }
    if (const TicketRow *first = earliestLive(tickets)) {
        c.id = first->id;
        c.basis = CanonicalTicket::Basis::EarliestLive;
        c.reason = c.snapshotTicketMissing
            ? QStringLiteral("the snapshot's ticket #%1 is not among them: the earliest live ticket (#%2, created %3)")
                  .arg(c.snapshotTicketId->text())
                  .arg(first->id.text())
                  .arg(first->createdAt)
            : QStringLiteral("no SUCCESS snapshot names one of these tickets: the earliest live ticket (#%1, created %2)")
                  .arg(first->id.text())
                  .arg(first->createdAt);
        return c;
    }
    c.basis = CanonicalTicket::Basis::None;
    c.reason = tickets.isEmpty() ? QStringLiteral("no ticket carries the key")
                                 : QStringLiteral("every ticket of the key is CANCELLED and no SUCCESS snapshot names one: "
                                                  "there is no canonical ticket");
    return c;
}

CanonicalTicket canonicalTicket(const KeyDetail &detail)
{
    return detail.record ? canonicalTicket(detail.tickets, detail.record->statusText, detail.record->resultSnapshot)
                         : canonicalTicket(detail.tickets, QString(), std::nullopt);
}

const QStringList &nonBusinessPayloadFields()
{
    static const QStringList fields{QStringLiteral("created_at"), QStringLiteral("id"), QStringLiteral("status"),
                                    QStringLiteral("ticket_id"), QStringLiteral("updated_at")};
    return fields;
}

QStringList keyReuseFields(const QVector<TicketRow> &tickets)
{
    if (tickets.size() < 2)
        return {};
    QVector<QJsonObject> objects;
    QSet<QString> raw;
    bool allObjects = true;
    for (const TicketRow &t : tickets) {
        const ParsedJson p = parseJsonText(t.payload);
        if (!p.ok || !p.root.isObject()) {
            allObjects = false;
            raw.insert(t.payload ? *t.payload : QStringLiteral("\x01NULL"));
            continue;
        }
        objects.append(p.root.toObject());
        raw.insert(t.payload.value_or(QString()));
    }
    if (!allObjects)
        return raw.size() > 1 ? QStringList{QStringLiteral("(payload)")} : QStringList();
    QStringList fields;
    for (const QJsonObject &o : std::as_const(objects))
        for (const QString &k : o.keys())
            if (!fields.contains(k) && !nonBusinessPayloadFields().contains(k))
                fields << k;
    QStringList differing;
    for (const QString &f : std::as_const(fields)) {
        QSet<QString> values;
        for (const QJsonObject &o : std::as_const(objects))
            values.insert(o.contains(f) ? valueText(o.value(f)) : QStringLiteral("\x01absent"));
        if (values.size() > 1)
            differing << f;
    }
    std::sort(differing.begin(), differing.end());
    return differing;
}

SnapshotTicketChoice snapshotTicketFor(const KeyDetail &detail, const std::optional<BusinessId> &requested)
{
    SnapshotTicketChoice out;
    const CanonicalTicket canon = canonicalTicket(detail);
    if (requested) {
        const auto t = std::find_if(detail.tickets.cbegin(), detail.tickets.cend(), [&](const TicketRow &x) { return x.id == *requested; });
        if (t == detail.tickets.cend()) {
            out.refusal = QStringLiteral("ticket #%1 does not carry key \"%2\"").arg(requested->text()).arg(detail.idemKey);
            return out;
        }
        if (canon.id != t->id) {
            out.refusal = canon.id ? QStringLiteral("ticket #%1 is not the canonical ticket of this key (#%2: %3): a SUCCESS "
                                                    "snapshot comes only from the canonical ticket (DESIGN.md §6)")
                                         .arg(t->id.text())
                                         .arg(canon.id->text())
                                         .arg(canon.reason)
                                   : QStringLiteral("ticket #%1 is not a canonical ticket (%2): a SUCCESS snapshot comes only "
                                                    "from the canonical ticket (DESIGN.md §6)")
                                         .arg(t->id.text())
                                         .arg(canon.reason);
            return out;
        }
        if (!t->payload) {
            out.refusal = QStringLiteral("ticket #%1 has a NULL payload: no snapshot to write").arg(t->id.text());
            return out;
        }
        out.ticket = *t;
        return out;
    }
    int live = 0;
    for (const TicketRow &t : detail.tickets)
        live += !isCancelled(t);
    if (!canon.id) {
        out.refusal = QStringLiteral("no canonical ticket to take the snapshot from (%1)").arg(canon.reason);
        return out;
    }
    if (live > 1) {
        out.refusal = QStringLiteral("%1 live tickets carry the key (a bulk SUCCESS takes the snapshot of the key's only live "
                                     "ticket); mark it alone with --snapshot-from-ticket %2 (the canonical ticket) or "
                                     "compensate the extras first")
                          .arg(live)
                          .arg(canon.id->text());
        return out;
    }
    const auto t = std::find_if(detail.tickets.cbegin(), detail.tickets.cend(), [&](const TicketRow &x) { return x.id == *canon.id; });
    if (!t->payload) {
        out.refusal = QStringLiteral("the canonical ticket #%1 has a NULL payload").arg(t->id.text());
        return out;
    }
    out.ticket = *t;
    return out;
}

QString snapshotCanonicalRefusal(const QVector<TicketRow> &tickets, const std::optional<QString> &snapshot, const QString &source)
{
    if (tickets.isEmpty())
        return {};
    const CanonicalTicket canon = canonicalTicket(tickets, QString(), std::nullopt);
    std::optional<BusinessId> from;
    if (source.startsWith(QLatin1String("ticket:")) && source.size() > 7)
        from = BusinessId(source.mid(7));
    const std::optional<BusinessId> named = snapshotNamedTicketId(snapshot);
    auto among = [&](const BusinessId &id) {
        return std::any_of(tickets.cbegin(), tickets.cend(), [&id](const TicketRow &t) { return t.id == id; });
    };
    if (from && !among(*from))
        return QStringLiteral("the snapshot is ticket #%1's payload, but ticket #%1 does not carry this key").arg(from->text());
    for (const std::optional<BusinessId> &id : {from, named}) {
        // A snapshot naming a ticket of some other key is not this rule's business.
        if (!id || !among(*id) || canon.id == *id)
            continue;
        const QString what = id == from ? QStringLiteral("the snapshot is ticket #%1's payload").arg(id->text())
                                        : QStringLiteral("the snapshot names ticket #%1").arg(id->text());
        return canon.id ? QStringLiteral("%1, but the canonical ticket of this key is #%2 (%3): a SUCCESS snapshot comes only "
                                         "from the canonical ticket (DESIGN.md §6)")
                              .arg(what)
                              .arg(canon.id->text())
                              .arg(canon.reason)
                        : QStringLiteral("%1, but the key has no canonical ticket (%2): a SUCCESS snapshot comes only from the "
                                         "canonical ticket (DESIGN.md §6)")
                              .arg(what, canon.reason);
    }
    return {};
}

} // namespace triage
