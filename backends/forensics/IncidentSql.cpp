// The incident tables (DESIGN.md §7 "Incidents"): console-owned, in the idempotency database
// beside triage_audit; every change and its audit row in one transaction.
#include "Incident.h"
#include "IncidentSql.h"

#include "Audit.h"
#include "ColumnText.h"
#include "ConsoleSchema.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>

namespace triage {

namespace {

const QString kOpen = QStringLiteral("open");
const QString kClosed = QStringLiteral("closed");

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QString incidentColumns(const SqlDialect &d)
{
    return QStringLiteral("i.id, i.title, %1, %2, i.filters, i.status, i.created_by, %3, i.closed_by, %4, i.version")
        .arg(d.timeText(QStringLiteral("i.window_from")), d.timeText(QStringLiteral("i.window_to")),
             d.timeText(QStringLiteral("i.created_at")), d.timeText(QStringLiteral("i.closed_at")));
}

Incident incidentFrom(const QSqlQuery &q)
{
    Incident i;
    i.id = q.value(0).toLongLong();
    i.title = q.value(1).toString();
    i.query.from = parseUtcMicros(canonicalTimeText(q.value(2))).value_or(0);
    i.query.to = parseUtcMicros(canonicalTimeText(q.value(3))).value_or(0);
    QString error;
    readIncidentFiltersJson(q.value(4).toString(), &i.query, &error); // unreadable filters: none (said by readIncident())
    i.open = q.value(5).toString() == kOpen;
    i.createdBy = q.value(6).toString();
    i.createdAt = canonicalTimeText(q.value(7));
    i.closedBy = columnText(q.value(8)).value_or(QString());
    i.closedAt = q.value(9).isNull() ? QString() : canonicalTimeText(q.value(9));
    i.version = q.value(10).toLongLong();
    return i;
}

/// The incident `id` as stored now, or nullopt.
std::optional<Incident> readIncidentRow(DbSession &s, qint64 id)
{
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM triage_incident i WHERE i.id = %2").arg(incidentColumns(s.dialect()), b.bind(id)), b);
    if (!q.next())
        return std::nullopt;
    return incidentFrom(q);
}

IncidentChange outcome(IncidentChange::Kind kind, qint64 id, const QString &message)
{
    IncidentChange c;
    c.kind = kind;
    c.incidentId = id;
    c.message = message;
    return c;
}

QString notFound(qint64 id)
{
    return QStringLiteral("no incident %1").arg(id);
}

/// "closed (by alice at 2026-…Z)": who closed `i`, for conflict messages.
QString closedBy(const Incident &i)
{
    return QStringLiteral("closed (by %1 at %2)").arg(i.closedBy, i.closedAt);
}

/// The audit row every incident change starts from: action, "incident:<id>", operator.
AuditEntry stamp(DbSession &s, QStringView action, qint64 id, const QString &operatorName)
{
    return auditStamp(action, QStringLiteral("incident:%1").arg(id), operatorName, auditDbUser(s.profile()));
}

/// Bumps the open incident's version (a compare-and-set on its status that also locks its row
/// until the transaction ends). Nullopt when it matched; else the Conflict / NotFound change.
std::optional<IncidentChange> touchOpen(DbSession &s, qint64 id, const QString &what)
{
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("UPDATE triage_incident SET version = version + 1 WHERE id = %1 AND status = %2")
                             .arg(b.bind(id), b.bind(kOpen)),
                         b);
    if (q.numRowsAffected() == 1)
        return std::nullopt;
    const std::optional<Incident> now = readIncidentRow(s, id);
    if (!now)
        return outcome(IncidentChange::Kind::NotFound, id, notFound(id));
    return outcome(IncidentChange::Kind::Conflict, id,
                   QStringLiteral("incident %1 is %2: reopen it to %3").arg(id).arg(closedBy(*now), what));
}

/// Rolls back and audits `change` (a conflict on an incident that exists) in its own
/// transaction, so the refusal stays on record.
IncidentChange rollBackConflict(DbSession &s, IncidentChange change, AuditEntry a)
{
    s.rollback();
    if (change.kind != IncidentChange::Kind::Conflict)
        return change;
    a.outcome = QStringLiteral("conflict");
    a.reason = change.message.left(1000);
    change.auditId = audit_sql::insert(s, a);
    return change;
}

/// Runs `body` in one transaction: commits when it returns Applied, else rolls back (and
/// audits a conflict with `a`). A DbException rolls back and propagates.
template <typename Body>
IncidentChange inTransaction(DbSession &s, const AuditEntry &a, Body body)
{
    // A console older than the database's console schema writes nothing (DESIGN.md §10).
    requireKnownConsoleSchema(s);
    incident_sql::requireIncidentTables(s);
    s.begin();
    IncidentChange change;
    try {
        change = body();
    } catch (const DbException &) {
        s.rollback();
        throw;
    }
    if (change.kind != IncidentChange::Kind::Applied)
        return rollBackConflict(s, change, a);
    s.commit();
    return change;
}

QJsonObject pinJson(EventKind kind, const QString &eventId, const QString &at)
{
    return {{QStringLiteral("kind"), eventKindName(kind)}, {QStringLiteral("store"), eventStoreName(storeOf(kind))},
            {QStringLiteral("id"), eventId}, {QStringLiteral("at"), at}};
}

QVariant textOrNull(const QString &s)
{
    return s.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(s);
}

} // namespace

namespace incident_sql {

void requireIncidentTables(DbSession &session)
{
    if (session.hasTable(QStringLiteral("triage_incident")) && session.hasTable(QStringLiteral("triage_incident_pin"))
        && session.hasTable(QStringLiteral("triage_incident_note")))
        return;
    throw DbException({session.role(), DbError::Kind::Config,
                       QStringLiteral("the %1 has no incident tables (console schema version %2; incidents need version 2): "
                                      "run `triagectl init-schema`")
                           .arg(roleTitle(session.role()))
                           .arg(storedConsoleSchemaVersion(session)),
                       {}});
}

QVector<Incident> list(DbSession &session, bool all, int limit)
{
    requireIncidentTables(session);
    SqlBuilder b;
    const QString columns = incidentColumns(session.dialect())
        + QStringLiteral(", (SELECT COUNT(*) FROM triage_incident_pin p WHERE p.incident_id = i.id), "
                         "(SELECT COUNT(*) FROM triage_incident_note n WHERE n.incident_id = i.id)");
    QStringList where;
    if (!all)
        where << QStringLiteral("i.status = %1").arg(b.bind(kOpen));
    QSqlQuery q = session.exec(selectSql(b, columns, QStringLiteral("triage_incident i"), where, QStringLiteral("i.id DESC"), limit), b);
    QVector<Incident> rows;
    while (q.next()) {
        Incident i = incidentFrom(q);
        i.pins = q.value(11).toInt();
        i.notes = q.value(12).toInt();
        rows << i;
    }
    return rows;
}

std::optional<IncidentDetail> read(DbSession &session, qint64 id)
{
    requireIncidentTables(session);
    std::optional<Incident> incident = readIncidentRow(session, id);
    if (!incident)
        return std::nullopt;
    IncidentDetail detail;
    detail.incident = *incident;
    const SqlDialect &d = session.dialect();
    SqlBuilder pb;
    QSqlQuery pins = session.exec(QStringLiteral("SELECT id, event_kind, event_id, %1, note, pinned_by, %2 FROM triage_incident_pin "
                                                 "WHERE incident_id = %3 ORDER BY event_at, id")
                                      .arg(d.timeText(QStringLiteral("event_at")), d.timeText(QStringLiteral("pinned_at")), pb.bind(id)),
                                  pb);
    while (pins.next()) {
        const std::optional<EventKind> kind = eventKindFromName(pins.value(1).toString());
        if (!kind)
            continue; // a kind a newer console pinned: not shown by this build
        IncidentPin p;
        p.id = pins.value(0).toLongLong();
        p.kind = *kind;
        p.eventId = pins.value(2).toString();
        p.eventAt = canonicalTimeText(pins.value(3));
        p.note = columnText(pins.value(4)).value_or(QString());
        p.pinnedBy = pins.value(5).toString();
        p.pinnedAt = canonicalTimeText(pins.value(6));
        detail.pins << p;
    }
    SqlBuilder nb;
    QSqlQuery notes = session.exec(QStringLiteral("SELECT id, operator, %1, body, event_kind, event_id FROM triage_incident_note "
                                                  "WHERE incident_id = %2 ORDER BY id")
                                       .arg(d.timeText(QStringLiteral("at")), nb.bind(id)),
                                   nb);
    while (notes.next()) {
        IncidentNote n;
        n.id = notes.value(0).toLongLong();
        n.operatorName = notes.value(1).toString();
        n.at = canonicalTimeText(notes.value(2));
        n.text = notes.value(3).toString();
        n.eventKind = eventKindFromName(columnText(notes.value(4)).value_or(QString()));
        n.eventId = columnText(notes.value(5)).value_or(QString());
        detail.notes << n;
    }
    detail.incident.pins = int(detail.pins.size());
    detail.incident.notes = int(detail.notes.size());
    return detail;
}

IncidentChange create(DbSession &s, const QString &title, const WindowQuery &query, const QString &operatorName)
{
    AuditEntry a = stamp(s, audit_action::IncidentCreate, 0, operatorName);
    return inTransaction(s, a, [&] {
        const SqlDialect &d = s.dialect();
        const QString filters = incidentFiltersJson(query);
        SqlBuilder b;
        const qint64 id = s.insertReturningId(
            QStringLiteral("INSERT INTO triage_incident (title, window_from, window_to, filters, status, created_by, created_at, "
                           "version) VALUES (%1, %2, %3, %4, %5, %6, %7, 1)")
                .arg(b.bind(title), d.timeParam(b.bind(d.bindTime(query.from))), d.timeParam(b.bind(d.bindTime(query.to))),
                     b.bind(filters), b.bind(kOpen), b.bind(operatorName), d.nowValue()),
            b);
        a.idemKey = QStringLiteral("incident:%1").arg(id);
        a.toState = compact({{QStringLiteral("status"), kOpen},
                             {QStringLiteral("title"), title},
                             {QStringLiteral("from"), formatUtcMicros(query.from)},
                             {QStringLiteral("to"), formatUtcMicros(query.to)},
                             {QStringLiteral("filters"), QJsonDocument::fromJson(filters.toUtf8()).object()},
                             {QStringLiteral("version"), 1}});
        a.reason = title;
        a.outcome = QStringLiteral("applied");
        IncidentChange c = outcome(IncidentChange::Kind::Applied, id, QStringLiteral("incident %1 created: %2").arg(id).arg(title));
        c.auditId = audit_sql::insert(s, a);
        return c;
    });
}

IncidentChange pin(DbSession &s, qint64 id, const WindowEvent &event, const QString &note, const QString &operatorName)
{
    AuditEntry a = stamp(s, audit_action::IncidentPin, id, operatorName);
    const QJsonObject what = pinJson(event.kind, event.id, event.atText);
    a.toState = compact({{QStringLiteral("pin"), what}});
    const QString name = QStringLiteral("%1 %2").arg(eventKindName(event.kind), event.id);
    return inTransaction(s, a, [&]() -> IncidentChange {
        if (auto refused = touchOpen(s, id, QStringLiteral("pin events")))
            return *refused;
        const SqlDialect &d = s.dialect();
        SqlBuilder b;
        try {
            IncidentChange c = outcome(IncidentChange::Kind::Applied, id, QStringLiteral("incident %1: pinned %2").arg(id).arg(name));
            c.rowId = s.insertReturningId(
                QStringLiteral("INSERT INTO triage_incident_pin (incident_id, event_kind, event_store, event_id, event_at, note, "
                               "pinned_by, pinned_at) VALUES (%1, %2, %3, %4, %5, %6, %7, %8)")
                    .arg(b.bind(id), b.bind(eventKindName(event.kind)), b.bind(eventStoreName(event.store)), b.bind(event.id),
                         d.timeParam(b.bind(d.bindTime(event.at))), b.bind(textOrNull(note)), b.bind(operatorName), d.nowValue()),
                b);
            a.reason = QStringLiteral("pinned %1").arg(name);
            a.detail = note;
            a.outcome = QStringLiteral("applied");
            c.auditId = audit_sql::insert(s, a);
            return c;
        } catch (const DbException &e) {
            if (!e.error.isUniqueViolation())
                throw;
            return outcome(IncidentChange::Kind::Conflict, id, QStringLiteral("%1 is already pinned to incident %2").arg(name).arg(id));
        }
    });
}

IncidentChange unpin(DbSession &s, qint64 id, EventKind kind, const QString &eventId, const QString &operatorName)
{
    AuditEntry a = stamp(s, audit_action::IncidentUnpin, id, operatorName);
    const QString name = QStringLiteral("%1 %2").arg(eventKindName(kind), eventId);
    return inTransaction(s, a, [&]() -> IncidentChange {
        if (auto refused = touchOpen(s, id, QStringLiteral("unpin events")))
            return *refused;
        const SqlDialect &d = s.dialect();
        SqlBuilder rb;
        QSqlQuery pinned = s.exec(QStringLiteral("SELECT id, %1 FROM triage_incident_pin WHERE incident_id = %2 AND event_kind = %3 "
                                                 "AND event_id = %4")
                                      .arg(d.timeText(QStringLiteral("event_at")), rb.bind(id), rb.bind(eventKindName(kind)), rb.bind(eventId)),
                                  rb);
        if (!pinned.next())
            return outcome(IncidentChange::Kind::Conflict, id, QStringLiteral("%1 is not pinned to incident %2").arg(name).arg(id));
        const qint64 pinId = pinned.value(0).toLongLong();
        a.fromState = compact({{QStringLiteral("pin"), pinJson(kind, eventId, canonicalTimeText(pinned.value(1)))}});
        SqlBuilder b;
        s.exec(QStringLiteral("DELETE FROM triage_incident_pin WHERE id = %1").arg(b.bind(pinId)), b);
        a.reason = QStringLiteral("unpinned %1").arg(name);
        a.outcome = QStringLiteral("applied");
        IncidentChange c = outcome(IncidentChange::Kind::Applied, id, QStringLiteral("incident %1: unpinned %2").arg(id).arg(name));
        c.auditId = audit_sql::insert(s, a);
        return c;
    });
}

IncidentChange note(DbSession &s, qint64 id, const QString &text, std::optional<EventKind> kind, const QString &eventId,
                    const QString &operatorName)
{
    AuditEntry a = stamp(s, audit_action::IncidentNote, id, operatorName);
    return inTransaction(s, a, [&]() -> IncidentChange {
        if (auto refused = touchOpen(s, id, QStringLiteral("add notes")))
            return *refused;
        const SqlDialect &d = s.dialect();
        SqlBuilder b;
        IncidentChange c = outcome(IncidentChange::Kind::Applied, id, QStringLiteral("incident %1: note added").arg(id));
        c.rowId = s.insertReturningId(
            QStringLiteral("INSERT INTO triage_incident_note (incident_id, operator, at, body, event_kind, event_id) "
                           "VALUES (%1, %2, %3, %4, %5, %6)")
                .arg(b.bind(id), b.bind(operatorName), d.nowValue(), b.bind(text),
                     b.bind(textOrNull(kind ? eventKindName(*kind) : QString())), b.bind(textOrNull(kind ? eventId : QString()))),
            b);
        QJsonObject to{{QStringLiteral("note"), c.rowId}};
        if (kind)
            to.insert(QStringLiteral("event"), QJsonObject{{QStringLiteral("kind"), eventKindName(*kind)}, {QStringLiteral("id"), eventId}});
        a.toState = compact(to);
        a.reason = kind ? QStringLiteral("note on %1 %2").arg(eventKindName(*kind), eventId) : QStringLiteral("note");
        a.detail = text;
        a.outcome = QStringLiteral("applied");
        c.auditId = audit_sql::insert(s, a);
        return c;
    });
}

IncidentChange setOpen(DbSession &s, qint64 id, bool open, const QString &operatorName)
{
    AuditEntry a = stamp(s, open ? audit_action::IncidentReopen : audit_action::IncidentClose, id, operatorName);
    return inTransaction(s, a, [&]() -> IncidentChange {
        const SqlDialect &d = s.dialect();
        SqlBuilder b;
        // Compare-and-set on the status: closing a closed incident (or reopening an open one)
        // matches no row.
        const QString sets = open ? QStringLiteral("status = %1, closed_by = NULL, closed_at = NULL").arg(b.bind(kOpen))
                                  : QStringLiteral("status = %1, closed_by = %2, closed_at = %3")
                                        .arg(b.bind(kClosed), b.bind(operatorName), d.nowValue());
        QSqlQuery q = s.exec(QStringLiteral("UPDATE triage_incident SET %1, version = version + 1 WHERE id = %2 AND status = %3")
                                 .arg(sets, b.bind(id), b.bind(open ? kClosed : kOpen)),
                             b);
        const std::optional<Incident> now = readIncidentRow(s, id);
        if (!now)
            return outcome(IncidentChange::Kind::NotFound, id, notFound(id));
        if (q.numRowsAffected() != 1) {
            a.fromState = compact({{QStringLiteral("status"), now->open ? kOpen : kClosed}, {QStringLiteral("version"), now->version}});
            return outcome(IncidentChange::Kind::Conflict, id,
                           open ? QStringLiteral("incident %1 is already open").arg(id)
                                : QStringLiteral("incident %1 is already %2").arg(id).arg(closedBy(*now)));
        }
        a.fromState = compact({{QStringLiteral("status"), open ? kClosed : kOpen}, {QStringLiteral("version"), now->version - 1}});
        a.toState = compact({{QStringLiteral("status"), open ? kOpen : kClosed}, {QStringLiteral("version"), now->version}});
        a.reason = open ? QStringLiteral("reopened") : QStringLiteral("closed");
        a.outcome = QStringLiteral("applied");
        IncidentChange c = outcome(IncidentChange::Kind::Applied, id,
                                   QStringLiteral("incident %1 %2").arg(id).arg(open ? QStringLiteral("reopened") : QStringLiteral("closed")));
        c.auditId = audit_sql::insert(s, a);
        return c;
    });
}

} // namespace incident_sql

} // namespace triage
