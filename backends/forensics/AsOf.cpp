#include "AsOf.h"

#include "StoreRole.h"
#include "TextEscape.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

namespace {

/// A time as stored, parsed; nullopt for NULL or text that is not a time.
std::optional<UtcMicros> timeOf(const QString &text)
{
    if (text.isNull())
        return std::nullopt;
    return parseUtcMicros(text);
}

/// A record state a mark's audit row names: {"status":…, "updated_at":…} (MarkSql's stateJson()).
struct MarkState {
    QString status;
    std::optional<UtcMicros> updatedAt;
};

MarkState markState(const QString &json)
{
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
    MarkState s;
    s.status = o.value(QStringLiteral("status")).toString();
    s.updatedAt = timeOf(o.value(QStringLiteral("updated_at")).toString());
    return s;
}

/// A mark that changed the record: its from-state held until it, its to-state from it on.
bool isAppliedMark(const AuditEntry &a)
{
    const QString action = canonicalAuditAction(a.action);
    return a.outcome == QLatin1String("applied")
        && (action == QStringView(audit_action::MarkSuccess) || action == QStringView(audit_action::MarkFailed));
}

QString orNull(const NullableText &t)
{
    return t ? *t : QStringLiteral("NULL");
}

QString orNullTime(const QString &t)
{
    return t.isNull() ? QStringLiteral("NULL") : t;
}

/// "N at T (M created after T)" / "none at T (…)".
QString countSummary(int atT, int later, const QString &noun)
{
    QString s = atT == 0 ? QStringLiteral("none at T") : QStringLiteral("%1 at T").arg(countText(atT, noun));
    if (later > 0)
        s += QStringLiteral(" (%1 created after T)").arg(later);
    return s;
}

/// The part of a row whose current state is known at T when it was last written at or before
/// T: sets basis, stateAtT and appends the reason to `item.text`. `stateNow` nullopt is SQL
/// NULL: "NULL" in the text (as `show` prints it), a null QString in stateNow / stateAtT (JSON
/// null).
void stateByLastWrite(AsOfItem &item, const QString &lastWritten, bool hasLastWritten, UtcMicros t, const NullableText &stateNow)
{
    item.stateNow = stateNow.value_or(QString());
    const QString now = orNull(stateNow);
    const std::optional<UtcMicros> u = timeOf(lastWritten);
    if (!hasLastWritten) {
        item.basis = AsOfBasis::NotRecorded;
        item.text += QStringLiteral("status at T not recorded (the table keeps no last-written time); now %1").arg(now);
    } else if (u && *u <= t) {
        item.basis = AsOfBasis::Unchanged;
        item.stateAtT = item.stateNow;
        item.since = lastWritten;
        item.text += QStringLiteral("%1 (last written at %2, not after T)").arg(now, lastWritten);
    } else if (!u) {
        item.basis = AsOfBasis::NotRecorded;
        item.text += QStringLiteral("status at T not recorded (last written at %1, not a readable time); now %2")
                         .arg(orNullTime(lastWritten), now);
    } else {
        item.basis = AsOfBasis::NotRecorded;
        item.text += QStringLiteral("status at T not recorded (last written at %1, after T); now %2").arg(lastWritten, now);
    }
}

AsOfSection unknownSection(AsOfPart part, const KeyDetail &d, DbRole role)
{
    AsOfSection s;
    s.part = part;
    s.unknown = true;
    s.summary = QStringLiteral("unknown (%1)").arg(storeFailureText(role, d.errors.value(role).message));
    return s;
}

AsOfSection recordSection(const KeyDetail &d, UtcMicros t)
{
    if (d.errors.contains(DbRole::Idempotency))
        return unknownSection(AsOfPart::Record, d, DbRole::Idempotency);
    AsOfSection s;
    s.part = AsOfPart::Record;
    if (!d.record) {
        s.summary = QStringLiteral("none (no idempotency_record has this key)");
        return s;
    }
    const RecordDetail &r = *d.record;
    AsOfItem item;
    item.ref = QStringLiteral("record %1").arg(r.id);
    item.createdAt = r.createdAt;
    item.stateNow = r.statusText;
    const std::optional<UtcMicros> created = timeOf(r.createdAt);
    const std::optional<UtcMicros> updated = timeOf(r.updatedAt);
    if (!created) {
        item.basis = AsOfBasis::Unreadable;
        item.text = QStringLiteral("created_at %1 is not a readable time: whether the record existed at T is unknown; now %2")
                        .arg(orNullTime(r.createdAt), r.statusText);
        s.summary = QStringLiteral("unknown (created_at unreadable)");
    } else if (*created > t) {
        item.basis = AsOfBasis::NotYet;
        item.text = QStringLiteral("no record yet: created at %1, after T; now %2").arg(r.createdAt, r.statusText);
        s.summary = QStringLiteral("not created yet");
    } else if (updated && *updated <= t) {
        item.basis = AsOfBasis::Unchanged;
        item.stateAtT = r.statusText;
        item.since = r.updatedAt;
        item.text = QStringLiteral("%1: last written at %2, not after T (created at %3)").arg(r.statusText, r.updatedAt, r.createdAt);
    } else {
        // The table keeps only the current state: only an applied mark after T that found the
        // record unchanged since a time at or before T establishes the status at T.
        for (const AuditEntry &a : d.audit) {
            const std::optional<UtcMicros> at = timeOf(a.at);
            if (!at || *at <= t || !isAppliedMark(a))
                continue;
            const MarkState from = markState(a.fromState);
            if (from.status.isEmpty() || !from.updatedAt || *from.updatedAt > t)
                continue;
            item.basis = AsOfBasis::SeenByMark;
            item.stateAtT = from.status;
            item.since = formatUtcMicros(*from.updatedAt);
            item.text = QStringLiteral("%1: unchanged from %2 until %3's %4 at %5 found it so (audit %6); now %7")
                            .arg(from.status, formatUtcMicros(*from.updatedAt), a.operatorName, canonicalAuditAction(a.action), a.at,
                                 QString::number(a.id), r.statusText);
            break;
        }
        if (!item.stateAtT) {
            item.basis = AsOfBasis::NotRecorded;
            item.text = updated ? QStringLiteral("status not recorded before %1 (the record's last write, after T; the table keeps "
                                                 "only the current state); now %2")
                                      .arg(r.updatedAt, r.statusText)
                                : QStringLiteral("status at T not recorded (updated_at %1 is not a readable time); now %2")
                                      .arg(orNullTime(r.updatedAt), r.statusText);
            // The last recorded change before T, named as such, never taken as the state at T:
            // another writer may have changed the record between it and T.
            const AuditEntry *last = nullptr;
            for (const AuditEntry &a : d.audit) {
                const std::optional<UtcMicros> at = timeOf(a.at);
                if (at && *at <= t && isAppliedMark(a))
                    last = &a;
            }
            if (last)
                item.text += QStringLiteral("; last recorded change before T: %1's %2 to %3 at %4 (audit %5)")
                                 .arg(last->operatorName, canonicalAuditAction(last->action), markState(last->toState).status, last->at,
                                      QString::number(last->id));
        }
        item.text += QStringLiteral(" (created at %1)").arg(r.createdAt);
    }
    if (s.summary.isEmpty())
        s.summary = item.stateAtT ? QStringLiteral("status at T: %1").arg(*item.stateAtT) : QStringLiteral("status at T not recorded");
    s.items << item;
    return s;
}

/// A row that is overwritten in place (an attempt, a ticket, a compensation) as of T: nullopt
/// when it was created after T (counted in `*later`); otherwise its item, the state established
/// only by its last write (stateByLastWrite()), unplaced when created_at is unreadable.
std::optional<AsOfItem> overwrittenRowAsOf(const QString &ref, const QString &header, const QString &createdAt,
                                           const QString &lastWritten, bool hasLastWritten, const NullableText &stateNow, UtcMicros t,
                                           int *later)
{
    const std::optional<UtcMicros> created = timeOf(createdAt);
    if (created && *created > t) {
        ++*later;
        return std::nullopt;
    }
    AsOfItem item;
    item.ref = ref;
    item.createdAt = createdAt;
    item.text = header;
    if (!created) {
        item.basis = AsOfBasis::Unreadable;
        item.stateNow = stateNow.value_or(QString());
        item.text += QStringLiteral("created_at is not a readable time: whether it existed at T is unknown; now %1").arg(orNull(stateNow));
    } else {
        stateByLastWrite(item, lastWritten, hasLastWritten, t, stateNow);
    }
    return item;
}

AsOfSection intentSection(const KeyDetail &d, UtcMicros t)
{
    if (d.errors.contains(DbRole::Intent))
        return unknownSection(AsOfPart::IntentLog, d, DbRole::Intent);
    AsOfSection s;
    s.part = AsOfPart::IntentLog;
    for (const IntentAttempt &a : d.attempts) {
        // The result overwrites the row: its status at T is known only when its last write
        // (updated_at, the result time) is not after T.
        const QString id = QString::number(a.id);
        if (auto item = overwrittenRowAsOf(QStringLiteral("attempt ") + id,
                                           QStringLiteral("attempt %1 %2 (task %3 step %4) at %5: ")
                                               .arg(id, orNull(a.action), orNull(a.taskId), orNull(a.stepId), orNullTime(a.createdAt)),
                                           a.createdAt, a.updatedAt, true, a.status, t, &s.later))
            s.items << *item;
    }
    s.summary = countSummary(s.items.size(), s.later, QStringLiteral("attempt"));
    return s;
}

AsOfSection ticketSection(const KeyDetail &d, UtcMicros t)
{
    if (d.errors.contains(DbRole::Ticket))
        return unknownSection(AsOfPart::Tickets, d, DbRole::Ticket);
    AsOfSection s;
    s.part = AsOfPart::Tickets;
    for (const TicketRow &r : d.tickets)
        if (auto item = overwrittenRowAsOf(QStringLiteral("ticket ") + r.id.text(),
                                           QStringLiteral("ticket %1 created at %2: ").arg(r.id.text(), orNullTime(r.createdAt)),
                                           r.createdAt, r.updatedAt, r.hasUpdatedAtColumn, r.status, t, &s.later))
            s.items << *item;
    s.summary = countSummary(s.items.size(), s.later, QStringLiteral("ticket"));
    return s;
}

AsOfSection auditSection(const KeyDetail &d, UtcMicros t)
{
    if (d.errors.contains(DbRole::Idempotency))
        return unknownSection(AsOfPart::OperatorActions, d, DbRole::Idempotency);
    AsOfSection s;
    s.part = AsOfPart::OperatorActions;
    for (const AuditEntry &a : d.audit) {
        const std::optional<UtcMicros> at = timeOf(a.at);
        if (at && *at > t) {
            ++s.later;
            continue;
        }
        AsOfItem item;
        item.ref = QStringLiteral("audit %1").arg(a.id);
        item.createdAt = a.at;
        item.stateNow = a.outcome;
        const QString to = markState(a.toState).status;
        item.text = QStringLiteral("audit %1 at %2: %3 %4 %5%6")
                        .arg(QString::number(a.id), orNullTime(a.at), a.operatorName, canonicalAuditAction(a.action), a.outcome,
                             to.isEmpty() ? QString() : QStringLiteral(" to ") + to);
        if (at) {
            item.basis = AsOfBasis::Written; // audit rows are never changed
            item.stateAtT = a.outcome;
            item.since = a.at;
        } else {
            item.basis = AsOfBasis::Unreadable;
            item.text += QStringLiteral(" (its time is not readable: whether it happened by T is unknown)");
        }
        s.items << item;
    }
    s.summary = countSummary(s.items.size(), s.later, QStringLiteral("action"));
    return s;
}

AsOfSection compensationSection(const KeyDetail &d, UtcMicros t)
{
    if (d.errors.contains(DbRole::Intent))
        return unknownSection(AsOfPart::Compensations, d, DbRole::Intent);
    AsOfSection s;
    s.part = AsOfPart::Compensations;
    int atT = 0;
    for (const CompensationRow &c : d.compensations) {
        const std::optional<AsOfItem> item = overwrittenRowAsOf(
            QStringLiteral("compensation ") + QString::number(c.id),
            QStringLiteral("compensation %1 %2 of ticket %3 by %4 at %5: ")
                .arg(QString::number(c.id), c.action, c.target, c.operatorName, orNullTime(c.createdAt)),
            c.createdAt, c.updatedAt, true, c.status.isNull() ? NullableText() : NullableText(c.status), t, &s.later);
        if (!item)
            continue;
        ++atT;
        s.items << *item;
        const std::optional<UtcMicros> updated = timeOf(c.updatedAt);
        const bool settledByT = updated && *updated <= t;
        for (const CompensationAttemptRow &a : d.compensationAttempts) {
            if (a.compKey != c.compKey)
                continue;
            const std::optional<UtcMicros> at = timeOf(a.at);
            if (at && *at > t)
                continue;
            AsOfItem ai;
            ai.ref = QStringLiteral("compensation attempt %1").arg(a.id);
            ai.createdAt = a.at;
            ai.stateNow = a.classification;
            ai.text = QStringLiteral("  %1 %2 at %3: ").arg(ai.ref, a.kind, orNullTime(a.at));
            if (!at) {
                ai.basis = AsOfBasis::Unreadable;
                ai.text += QStringLiteral("its time is not readable; now %1").arg(a.classification);
            } else if (a.kind != QLatin1String("send")) {
                ai.basis = AsOfBasis::Written; // a confirmation query is written once, complete
                ai.stateAtT = a.classification;
                ai.since = a.at;
                ai.text += a.classification;
            } else if (a.classification == QLatin1String("IN_FLIGHT") || settledByT) {
                // A call's row is written IN_FLIGHT before the call and completed in place; the
                // runner writes the compensation's status after that, so a compensation last
                // written by T had its replies recorded by T.
                ai.basis = AsOfBasis::Unchanged;
                ai.stateAtT = a.classification;
                // IN_FLIGHT holds from the row's time; a reply at the latest from the
                // compensation's last write (written after the reply).
                ai.since = a.classification == QLatin1String("IN_FLIGHT") ? a.at : c.updatedAt;
                ai.text += a.classification;
            } else {
                ai.basis = AsOfBasis::NotRecorded;
                ai.text += QStringLiteral("reply at T not recorded (its time is not kept); now %1").arg(a.classification);
            }
            s.items << ai;
        }
    }
    s.summary = countSummary(atT, s.later, QStringLiteral("compensation"));
    return s;
}

} // namespace

QString asOfBasisName(AsOfBasis basis)
{
    switch (basis) {
    case AsOfBasis::Written: return QStringLiteral("written");
    case AsOfBasis::Unchanged: return QStringLiteral("unchanged");
    case AsOfBasis::SeenByMark: return QStringLiteral("seen_by_mark");
    case AsOfBasis::NotRecorded: return QStringLiteral("not_recorded");
    case AsOfBasis::NotYet: return QStringLiteral("not_yet");
    case AsOfBasis::Unreadable: return QStringLiteral("unreadable");
    }
    return QString();
}

QString asOfPartName(AsOfPart part)
{
    switch (part) {
    case AsOfPart::Record: return QStringLiteral("record");
    case AsOfPart::IntentLog: return QStringLiteral("intent_log");
    case AsOfPart::Tickets: return QStringLiteral("tickets");
    case AsOfPart::OperatorActions: return QStringLiteral("operator_actions");
    case AsOfPart::Compensations: return QStringLiteral("compensations");
    }
    return QString();
}

QString asOfPartTitle(AsOfPart part)
{
    switch (part) {
    case AsOfPart::Record: return QStringLiteral("Record");
    case AsOfPart::IntentLog: return QStringLiteral("Intent log");
    case AsOfPart::Tickets: return QStringLiteral("Tickets");
    case AsOfPart::OperatorActions: return QStringLiteral("Operator actions");
    case AsOfPart::Compensations: return QStringLiteral("Compensations");
    }
    return QString();
}

KeyStateAsOf keyStateAsOf(const KeyDetail &detail, UtcMicros t)
{
    KeyStateAsOf out;
    out.idemKey = detail.idemKey;
    out.at = t;
    out.atText = formatUtcMicros(t);
    out.sections = {recordSection(detail, t), intentSection(detail, t), ticketSection(detail, t), auditSection(detail, t),
                    compensationSection(detail, t)};
    return out;
}

QStringList asOfTextLines(const KeyStateAsOf &state)
{
    QStringList lines{QStringLiteral("As of %1 (UTC, inclusive): %2").arg(state.atText, state.idemKey)};
    for (const AsOfSection &s : state.sections) {
        lines << QStringLiteral("%1: %2").arg(asOfPartTitle(s.part), s.summary);
        for (const AsOfItem &i : s.items)
            lines << QStringLiteral("  ") + i.text;
    }
    return lines;
}

} // namespace triage
