#include "KeyDetail.h"
#include "KeyDetailBulk.h"

#include "ColumnText.h"
#include "PolicySql.h"
#include "JsonText.h"
#include "Queue.h"
#include "RawJson.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
#include "TextEscape.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlField>
#include <QSet>
#include <QSqlRecord>

#include <algorithm>

namespace triage {

namespace {

/// A text column read through SqlDialect::rawText(): exact when valid UTF-8, else escaped
/// (TextEscape.h) and `column` added to `escaped`.
NullableText rawText(const QVariant &v, const QString &column, QStringList &escaped)
{
    StoredText t = decodeStoredText(v);
    if (t.escaped)
        escaped << column;
    return std::move(t.text);
}

/// True when QString::simplified() would return `s` unchanged: no whitespace but single
/// spaces between words (the same QChar::isSpace() test simplified() uses).
bool isSimplified(QStringView s)
{
    bool previousSpace = true; // no leading space
    for (const QChar c : s) {
        if (c.isSpace()) {
            if (previousSpace || c != u' ')
                return false;
            previousSpace = true;
        } else {
            previousSpace = false;
        }
    }
    return s.isEmpty() || !previousSpace; // no trailing space
}

/// Appends `text` on one line (whitespace runs as one space), at most `max` characters
/// (the last one an ellipsis when cut). Most texts are one line already: no copy then.
void appendOneLine(QString &out, const QString &text, int max)
{
    const QString simple = isSimplified(text) ? text : text.simplified();
    if (simple.size() > max) {
        out += QStringView(simple).left(max - 1);
        out += QChar(0x2026);
    } else {
        out += simple;
    }
}

QString oneLine(const NullableText &t, int max = 80)
{
    if (!t)
        return QStringLiteral("NULL");
    QString s;
    appendOneLine(s, *t, max);
    return s;
}

void appendNumber(QString &out, qint64 n)
{
    char16_t digits[24];
    int i = 24;
    const bool negative = n < 0;
    quint64 v = negative ? 0 - quint64(n) : quint64(n);
    do {
        digits[--i] = char16_t(u'0' + v % 10);
        v /= 10;
    } while (v);
    if (negative)
        digits[--i] = u'-';
    out += QStringView(digits + i, 24 - i);
}

/// An audit row's from/to state in a word or three: a record's status ("PROCESSING" from
/// {"status":"PROCESSING",…}), an escalation's ("open DUPLICATE" from {"state":"open",
/// "reason":"DUPLICATE",…}, DESIGN.md §8), a claim's ("held by alice" from {"holder":"alice",…}),
/// "none" for an empty state (a row created or deleted), else "?".
QString stateName(const QString &stateJson)
{
    if (stateJson.trimmed().isEmpty())
        return QStringLiteral("none");
    const QJsonObject o = QJsonDocument::fromJson(stateJson.toUtf8()).object();
    const QString s = o.value(QStringLiteral("status")).toString();
    if (!s.isEmpty())
        return s;
    const QString state = o.value(QStringLiteral("state")).toString();
    const QString reason = o.value(QStringLiteral("reason")).toString();
    if (!state.isEmpty() && !reason.isEmpty())
        return state + QLatin1Char(' ') + reason;
    const QString holder = o.value(QStringLiteral("holder")).toString();
    if (!holder.isEmpty())
        return QStringLiteral("held by ") + holder;
    return QStringLiteral("?");
}

} // namespace

namespace detail_sql {

QString keyIn(SqlBuilder &b, Dialect dialect, const QString &column, const QStringList &keys)
{
    if (keys.size() == 1)
        return textIs(b, dialect, column, keys.first());
    auto list = [&] {
        QStringList bound;
        for (const QString &k : keys)
            bound << b.bind(k);
        return bound.join(QStringLiteral(", "));
    };
    if (dialect == Dialect::MySql)
        return QStringLiteral("(%1 IN (%2) AND BINARY %1 IN (%3))").arg(column, list(), list());
    return QStringLiteral("%1 IN (%2)").arg(column, list());
}


std::optional<RecordDetail> readRecord(DbSession &session, const WorkspaceConfig &config, const QString &key)
{
    QVector<RecordDetail> found = readRecords(session, config, {key});
    if (found.isEmpty())
        return std::nullopt;
    return std::move(found.first());
}

QVector<RecordDetail> readRecords(DbSession &session, const WorkspaceConfig &config, const QStringList &keys, bool decisionOnly)
{
    QVector<RecordDetail> records;
    if (keys.isEmpty())
        return records;
    const SqlDialect &d = session.dialect();
    const RecordSql rs = config.records(d.kind());
    const RecordTableMap &m = rs.map;
    const QString r = QStringLiteral("r");
    // The version column counts only when mapped and really there (DESIGN.md §10).
    const bool hasVersion = !m.version.isEmpty() && session.hasColumn(rs.table, m.version);
    const QMap<QString, QString> dbPolicy = policy_sql::values(session); // triage_policy beside the records
    SqlBuilder b;
    const QString expiresIn = rs.expireAt.isEmpty()
        ? QStringLiteral("NULL")
        : QStringLiteral("CASE WHEN %1 IS NULL THEN NULL ELSE -(%2) END")
              .arg(qualified(r, rs.expireAt), rs.time.secondsSince(qualified(r, rs.expireAt)));
    // One list, one arg() pass: fragments such as SQLite's printf('%03d', …) must never be
    // read as placeholders by a second pass.
    QStringList columns{
        rs.time.text(qualified(r, rs.createdAt)) + QStringLiteral(" AS tc_created"),
        rs.time.text(qualified(r, rs.updatedAt)) + QStringLiteral(" AS tc_updated"),
        rs.expireAtText(r) + QStringLiteral(" AS tc_expire"),
        rs.time.secondsSince(qualified(r, rs.updatedAt)) + QStringLiteral(" AS tc_age"),
        expiresIn + QStringLiteral(" AS tc_expires_in"),
        d.nowText() + QStringLiteral(" AS tc_now"),
        (decisionOnly ? QStringLiteral("NULL") : d.rawText(qualified(r, rs.snapshot))) + QStringLiteral(" AS tc_snapshot"),
        rs.statuses.read(qualified(r, rs.status)) + QStringLiteral(" AS tc_status"),
        rs.bizType(b, r) + QStringLiteral(" AS tc_biz_type"),
        (rs.tenant.isEmpty() ? QStringLiteral("NULL") : qualified(r, rs.tenant)) + QStringLiteral(" AS tc_tenant")};
    if (!decisionOnly) {
        columns << QStringLiteral("r.*");
    } else { // the mapped id, key and version under their own names (the loop below reads them)
        for (const QString &c : {rs.id, rs.key, hasVersion ? rs.version : QString()})
            if (!c.isEmpty())
                columns << qualified(r, c);
    }
    const QString sql = QStringLiteral("SELECT %1 FROM %2 r WHERE %3")
                            .arg(columns.join(QStringLiteral(", ")), rs.table, keyIn(b, d.kind(), qualified(r, rs.key), keys));
    QSqlQuery q = session.exec(sql, b);
    QSet<QString> seen; // one record per key: the first row, as readRecord() always took
    const QSqlRecord rec = q.record(); // the field names, the same for every row
    QHash<QString, BizPolicy> policies;   // per biz_type: effectiveBizPolicy() once
    while (q.next()) {
        constexpr int kFirstColumn = 10;
        RecordDetail out;
        out.hasVersionColumn = hasVersion;
        out.hasExpireAtColumn = !rs.expireAt.isEmpty();
        out.createdAt = canonicalTimeText(q.value(0));
        out.updatedAt = canonicalTimeText(q.value(1));
        out.expireAt = canonicalTimeText(q.value(2));
        out.ageSeconds = q.value(3).toDouble();
        if (!q.value(4).isNull())
            out.expiresInSeconds = q.value(4).toDouble();
        out.serverNow = canonicalTimeText(q.value(5));
        out.resultSnapshot = rawText(q.value(6), m.snapshot, out.escapedColumns);
        const StoredRecordStatus status = StoredRecordStatus::fromMapped(q.value(7), m.statuses);
        out.statusText = status.text;
        out.statusCode = status.code; // nullopt for NULL and for values no spelling matches (never rounded)
        out.statusStored = status.stored;
        switch (q.value(7).typeId()) {
        case QMetaType::Int: case QMetaType::UInt: case QMetaType::LongLong: case QMetaType::ULongLong:
        case QMetaType::Short: case QMetaType::UShort: case QMetaType::Char: case QMetaType::SChar: case QMetaType::UChar:
        case QMetaType::Double: case QMetaType::Float:
            out.statusStoredIsNumber = !q.value(7).isNull();
            break;
        default: break;
        }
        out.bizType = columnText(q.value(8));
        const std::optional<QString> tenantColumn = rs.tenant.isEmpty() ? std::nullopt : columnText(q.value(9));
        // Every column of the row under its real name; the mapped ones shown as the console reads
        // them, and named as mapped (so `show` lists as "other" only what the mapping leaves out).
        out.mappedColumns.clear();
        for (const QString &c : {m.id, m.key, m.bizType, m.status, m.snapshot, m.createdAt, m.updatedAt, m.expireAt, m.version, m.tenant})
            if (!c.isEmpty())
                out.mappedColumns << c;
        auto is = [](const QString &field, const QString &mapped) {
            return !mapped.isEmpty() && field.compare(mapped, Qt::CaseInsensitive) == 0;
        };
        for (int i = kFirstColumn; i < rec.count(); ++i) {
            const QString name = rec.fieldName(i);
            const QVariant v = q.value(i);
            QString shown;
            if (v.isNull()) {
                shown = QStringLiteral("NULL");
                out.nullColumns << name;
            }
            else if (is(name, m.createdAt))
                shown = out.createdAt;
            else if (is(name, m.updatedAt))
                shown = out.updatedAt;
            else if (is(name, m.expireAt))
                shown = out.expireAt;
            else if (is(name, m.snapshot))
                shown = QStringLiteral("(%1 characters)").arg(out.resultSnapshot ? out.resultSnapshot->size() : 0);
            else
                shown = *columnText(v);
            out.allColumns.append({name, shown});
            if (is(name, m.id))
                out.id = v.toLongLong();
            else if (is(name, m.key))
                out.idemKey = v.toString();
            else if (hasVersion && is(name, m.version) && !v.isNull())
                out.version = v.toLongLong();
        }
        const BizTypeConfig bt = config.bizType(out.bizType.value_or(QString()));
        out.processingTimeoutS = bt.processingTimeoutS;
        // The database's policy made stricter by the INI (DESIGN.md §8 "Safety policy").
        const QString bizType = out.bizType.value_or(QString());
        auto policy = policies.constFind(bizType);
        if (policy == policies.cend())
            policy = policies.insert(bizType, effectiveBizPolicy(config, dbPolicy, bizType));
        out.policy = *policy;
        out.failedEvidence = out.policy.failedEvidence.value_or(BizTypeConfig().failedEvidence);
        out.failedEvidenceMaxAgeS = out.policy.failedEvidenceMaxAgeS.value_or(BizTypeConfig().failedEvidenceMaxAgeS);
        out.upstreamConfigured = config.upstreams.contains(out.bizType.value_or(QString()))
            || config.upstreamsOnDemand.contains(out.bizType.value_or(QString()));
        // A real tenant column wins over the key pattern (DESIGN.md §10).
        out.tenant = rs.tenant.isEmpty() ? tenantFromKey(out.idemKey, bt.tenantPattern) : tenantColumn.value_or(QString());
        out.stale = out.statusCode == Processing && out.ageSeconds > out.processingTimeoutS;
        if (!seen.contains(out.idemKey)) {
            seen.insert(out.idemKey);
            records.append(std::move(out));
        }
    }
    return records;
}

QVector<TicketRow> readTickets(DbSession &session, const WorkspaceConfig &config, const QString &key)
{
    return readTickets(session, config, QStringList{key});
}

QVector<TicketRow> readTickets(DbSession &session, const WorkspaceConfig &config, const QStringList &keys)
{
    if (keys.isEmpty())
        return {};
    const SqlDialect &d = session.dialect();
    const TicketSql ts = config.tickets(d.kind());
    SqlBuilder b;
    // Optional columns the table lacks read as NULL. The id is read as text (the business id is
    // opaque, TicketSql::idText(); aliased: an unnamed CAST(id AS text) would be the "id" the ORDER BY
    // sorts by, as text).
    const QString title = ts.title.isEmpty() ? QStringLiteral("NULL") : d.rawText(ts.title);
    const QStringList columns{ts.idText() + QStringLiteral(" AS tc_id"), ts.key, ts.tenantOrNull(), title, ts.statuses.read(ts.status), d.rawText(ts.payload),
                              ts.time.text(ts.createdAt), ts.updatedAtTextOrNull()};
    const QString sql = QStringLiteral("SELECT %1 FROM %2 WHERE %3 ORDER BY %4, %5")
                            .arg(columns.join(QStringLiteral(", ")), ts.table, keyIn(b, d.kind(), ts.key, keys), ts.createdAt, ts.id);
    QSqlQuery q = session.exec(sql, b);
    const QString titleName = ts.map.title.isEmpty() ? QStringLiteral("title") : ts.map.title;
    QVector<TicketRow> rows;
    while (q.next()) {
        TicketRow t;
        t.id = BusinessId::fromColumn(q.value(0)); // exactly as stored (BIGINT, VARCHAR or UUID)
        t.idemKey = columnText(q.value(1));
        t.tenantId = columnText(q.value(2));
        t.title = rawText(q.value(3), titleName, t.escapedColumns);
        t.status = ts.statusName(q.value(4)); // "CANCELLED" for a mapped cancelled spelling
        t.payload = rawText(q.value(5), ts.map.payload, t.escapedColumns);
        t.createdAt = canonicalTimeText(q.value(6));
        t.updatedAt = canonicalTimeText(q.value(7));
        t.hasUpdatedAtColumn = !ts.updatedAt.isEmpty();
        rows.append(std::move(t));
    }
    return rows;
}

QVector<IntentAttempt> readAttempts(DbSession &session, const WorkspaceConfig &config, const QString &key)
{
    return readAttempts(session, config, QStringList{key});
}

QVector<IntentAttempt> readAttempts(DbSession &session, const WorkspaceConfig &config, const QStringList &keys)
{
    if (keys.isEmpty())
        return {};
    const SqlDialect &d = session.dialect();
    const IntentSql is = config.intents(d.kind());
    const IntentTableMap &m = is.map;
    SqlBuilder b;
    const QStringList columns{is.id, is.taskId, is.stepId, is.action, is.key, is.statuses.read(is.status),
                              d.rawText(is.request), d.rawText(is.response), d.rawText(is.error),
                              // A log without state snapshots or actor (mapped ""): NULL.
                              is.stateBefore.isEmpty() ? QStringLiteral("NULL") : d.rawText(is.stateBefore),
                              is.stateAfter.isEmpty() ? QStringLiteral("NULL") : d.rawText(is.stateAfter),
                              is.actor.isEmpty() ? QStringLiteral("NULL") : is.actor, is.time.text(is.createdAt),
                              is.time.text(is.updatedAt)};
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM %2 WHERE %3 ORDER BY %4, %5")
                                   .arg(columns.join(QStringLiteral(", ")), is.table, keyIn(b, d.kind(), is.key, keys),
                                        is.createdAt, is.id),
                               b);
    QVector<IntentAttempt> rows;
    while (q.next()) {
        IntentAttempt a;
        a.id = q.value(0).toLongLong();
        a.taskId = columnText(q.value(1));
        a.stepId = columnText(q.value(2));
        a.action = columnText(q.value(3));
        a.idemKey = columnText(q.value(4));
        // Console spelling ("SUCCEEDED"); a value no spelling matches as stored.
        a.status = q.value(5).isNull() ? NullableText() : NullableText(is.statusName(q.value(5)));
        a.request = rawText(q.value(6), m.request, a.escapedColumns);
        a.response = rawText(q.value(7), m.response, a.escapedColumns);
        a.error = rawText(q.value(8), m.error, a.escapedColumns);
        a.stateBefore = rawText(q.value(9), m.stateBefore, a.escapedColumns);
        a.stateAfter = rawText(q.value(10), m.stateAfter, a.escapedColumns);
        a.actor = columnText(q.value(11));
        a.createdAt = canonicalTimeText(q.value(12));
        a.updatedAt = canonicalTimeText(q.value(13));
        rows.append(std::move(a));
    }
    return rows;
}

} // namespace detail_sql

QVector<TimelineEvent> buildTimeline(const KeyDetail &detail)
{
    QVector<TimelineEvent> events;
    events.reserve(2 + 2 * (detail.attempts.size() + detail.tickets.size() + detail.compensations.size()) + detail.audit.size());
    auto add = [&](const QString &time, const QString &source, const QString &kind, QString summary, const BusinessId &id) {
        TimelineEvent &e = events.emplace_back();
        e.time = time.isNull() ? QStringLiteral("NULL") : time;
        e.micros = parseUtcMicros(time);
        e.source = source;
        e.kind = kind;
        e.summary = std::move(summary);
        e.refId = id;
    };
    if (detail.record) {
        const RecordDetail &r = *detail.record;
        add(r.createdAt, QStringLiteral("idempotency_record"), QStringLiteral("created"),
            QStringLiteral("record created (biz_type %1)").arg(r.bizType.value_or(QStringLiteral("NULL"))), BusinessId::fromInteger(r.id));
        if (r.updatedAt != r.createdAt)
            add(r.updatedAt, QStringLiteral("idempotency_record"), QStringLiteral("updated"),
                QStringLiteral("record last updated: status %1").arg(r.statusText), BusinessId::fromInteger(r.id));
        else
            events.last().summary += QStringLiteral(", status %1").arg(r.statusText);
    }
    // Attempt numbers per (task_id, step_id), in time order. The summaries are appended
    // piece by piece (a key can have thousands of attempts); the texts are inserted as
    // they are, never re-scanned for %N markers.
    const QString null = QStringLiteral("NULL");
    const QString intentLog = QStringLiteral("intent_log");
    const QString intentKind = QStringLiteral("intent");
    const QString resultKind = QStringLiteral("result");
    QMap<QString, int> attemptNo;
    QString step;
    for (const IntentAttempt &a : detail.attempts) {
        step.truncate(0);
        step += a.taskId ? QStringView(*a.taskId) : QStringView(u"?");
        step += u'/';
        step += a.stepId ? QStringView(*a.stepId) : QStringView(u"?");
        const int n = ++attemptNo[step];
        const QString &action = a.action ? *a.action : null;
        const QString &task = a.taskId ? *a.taskId : null;
        const QString &stepId = a.stepId ? *a.stepId : null;
        const QString &actor = a.actor ? *a.actor : null;
        QString intent;
        intent.reserve(48 + action.size() + task.size() + stepId.size() + actor.size());
        intent += u"intent: ";
        intent += action;
        intent += u" (task ";
        intent += task;
        intent += u" step ";
        intent += stepId;
        intent += u", attempt ";
        appendNumber(intent, n);
        intent += u") by ";
        intent += actor;
        add(a.createdAt, intentLog, intentKind, std::move(intent), BusinessId::fromInteger(a.id));
        const QString &status = a.status ? *a.status : null;
        if (status != QLatin1String("INTENT")) {
            QString summary;
            summary.reserve(24 + status.size() + 72);
            summary += u"result: ";
            summary += status;
            if (a.error && !a.error->isEmpty()) {
                summary += u" (error: ";
                appendOneLine(summary, *a.error, 60);
                summary += u')';
            } else if (a.response) {
                summary += u" (response: ";
                appendOneLine(summary, *a.response, 60);
                summary += u')';
            }
            add(a.updatedAt, intentLog, resultKind, std::move(summary), BusinessId::fromInteger(a.id));
        }
    }
    for (const TicketRow &t : detail.tickets) {
        add(t.createdAt, QStringLiteral("ticket"), QStringLiteral("created"),
            QStringLiteral("ticket #%1 created (tenant %2; now %3): %4")
                .arg(t.id.text())
                .arg(t.tenantId.value_or(QStringLiteral("NULL")), t.status.value_or(QStringLiteral("NULL")), oneLine(t.title, 50)),
            t.id);
        if (t.hasUpdatedAtColumn && t.updatedAt != t.createdAt)
            add(t.updatedAt, QStringLiteral("ticket"), QStringLiteral("updated"),
                QStringLiteral("ticket #%1 last updated: %2").arg(t.id.text()).arg(t.status.value_or(QStringLiteral("NULL"))), t.id);
    }
    for (const AuditEntry &a : detail.audit) {
        const QString summary = a.toState.isEmpty()
            ? QStringLiteral("%1 by %2: %3").arg(a.action, a.operatorName, oneLine(a.reason, 90))
            : QStringLiteral("%1 by %2: %3 → %4 (%5): %6")
                  .arg(a.action, a.operatorName, stateName(a.fromState), stateName(a.toState),
                       // a mark four-eyes made a proposal (DESIGN.md §9) is audited "recorded"
                       a.outcome == QLatin1String("recorded") && a.action.startsWith(QLatin1String("mark_"))
                           ? QStringLiteral("proposed, four-eyes")
                           : a.outcome,
                       oneLine(a.reason, 60));
        add(a.at, QStringLiteral("triage_audit"), a.outcome, summary, BusinessId::fromInteger(a.id));
    }
    for (const CompensationRow &c : detail.compensations) {
        add(c.createdAt, QStringLiteral("triage_compensation"), QStringLiteral("intent"),
            QStringLiteral("compensation %1 of ticket %2 by %3 (%4): %5").arg(c.action, c.target, c.operatorName, c.compKey, oneLine(c.reason, 60)),
            BusinessId::fromInteger(c.id));
        if (c.status != QLatin1String("INTENT"))
            add(c.updatedAt, QStringLiteral("triage_compensation"), c.status.toLower(),
                QStringLiteral("compensation %1 of ticket %2: %3 after %4")
                    .arg(c.action, c.target, c.status, countText(c.attempts, QStringLiteral("call"))),
                BusinessId::fromInteger(c.id));
    }
    auto rank = [](const QString &source) {
        if (source == QLatin1String("idempotency_record"))
            return 0;
        if (source == QLatin1String("intent_log"))
            return 1;
        if (source == QLatin1String("ticket"))
            return 2;
        return 3;
    };
    std::stable_sort(events.begin(), events.end(), [&](const TimelineEvent &a, const TimelineEvent &b) {
        if (a.micros.has_value() != b.micros.has_value())
            return a.micros.has_value();
        if (a.micros && *a.micros != *b.micros)
            return *a.micros < *b.micros;
        if (rank(a.source) != rank(b.source))
            return rank(a.source) < rank(b.source);
        return a.refId < b.refId;
    });
    return events;
}

KeyDetail keepEarlierParts(const KeyDetail &fresh, const KeyDetail &earlier)
{
    if (fresh.idemKey != earlier.idemKey || fresh.errors.isEmpty())
        return fresh;
    KeyDetail d = fresh;
    for (auto it = fresh.errors.cbegin(); it != fresh.errors.cend(); ++it) {
        const DbRole role = it.key();
        if (earlier.errors.contains(role) && !earlier.keptFromEarlier.contains(role))
            continue; // the earlier read failed too: nothing to keep
        switch (role) {
        case DbRole::Idempotency:
            d.record = earlier.record;
            d.audit = earlier.audit;
            break;
        case DbRole::Ticket: d.tickets = earlier.tickets; break;
        case DbRole::Intent:
            d.attempts = earlier.attempts;
            d.compensations = earlier.compensations;
            d.compensationAttempts = earlier.compensationAttempts;
            break;
        }
        d.keptFromEarlier << role;
    }
    if (!d.keptFromEarlier.isEmpty())
        d.timeline = buildTimeline(d);
    return d;
}

QStringList storedTextWarnings(const KeyDetail &d, const SchemaMap &schema)
{
    QStringList w;
    const QString scheme = QStringLiteral("shown with each invalid byte as \\xHH and each backslash doubled "
                                          "(DESIGN.md §4 \"Odd bytes\")");
    if (d.record && !d.record->escapedColumns.isEmpty())
        w << QStringLiteral("%1.%2 is not valid UTF-8: %3")
                 .arg(schema.records.table, d.record->escapedColumns.join(QStringLiteral(", ")), scheme);
    auto summarise = [&](const QString &table, const QMap<QString, QList<BusinessId>> &ids, const QString &row) {
        for (auto it = ids.cbegin(); it != ids.cend(); ++it) {
            QStringList shown;
            for (int i = 0; i < qMin<qsizetype>(5, it->size()); ++i)
                shown << it->at(i).text();
            if (it->size() > 5)
                shown << QStringLiteral("…");
            w << QStringLiteral("%1.%2 of %3 (id %4) is not valid UTF-8: %5")
                     .arg(table, it.key(), countText(it->size(), row), shown.join(QStringLiteral(", ")), scheme);
        }
    };
    QMap<QString, QList<BusinessId>> ticketIds, attemptIds;
    for (const TicketRow &t : d.tickets)
        for (const QString &c : t.escapedColumns)
            ticketIds[c].append(t.id);
    for (const IntentAttempt &a : d.attempts)
        for (const QString &c : a.escapedColumns)
            attemptIds[c].append(BusinessId::fromInteger(a.id));
    summarise(schema.tickets.table, ticketIds, QStringLiteral("ticket"));
    summarise(schema.intents.table, attemptIds, QStringLiteral("attempt"));
    if (d.record && d.record->statusCode == Success && d.record->resultSnapshot) {
        const ParsedJson parsed = parseJsonText(*d.record->resultSnapshot);
        if (!parsed.ok)
            w << QStringLiteral("result_snapshot of this SUCCESS record is not valid JSON (%1): callers were given a broken snapshot")
                     .arg(parsed.error);
        for (const rawjson::DuplicateKey &k : rawjson::duplicateKeys(d.record->resultSnapshot->toUtf8(), 5))
            w << QStringLiteral("result_snapshot writes \"%1\" %2 times in %3: a JSON parser keeps only the last, callers may "
                                "have read either")
                     .arg(k.key)
                     .arg(k.count)
                     .arg(k.path);
    }
    return w;
}

QStringList expiryWarnings(const RecordDetail &r)
{
    QStringList w;
    if (!r.hasExpireAtColumn)
        return w; // the table keeps no expiry: nothing to warn about
    const bool unresolved = r.statusCode != Success && r.statusCode != Failed;
    if (r.expireAt.isNull()) {
        w << QStringLiteral("expire_at is NULL: when this record is reaped is unknown");
        return w;
    }
    const auto created = parseUtcMicros(r.createdAt);
    const auto expire = parseUtcMicros(r.expireAt);
    if (!expire) {
        w << QStringLiteral("expire_at \"%1\" is not a time the console can read").arg(r.expireAt);
        return w;
    }
    if (created && *expire < *created)
        w << QStringLiteral("expire_at (%1) is before created_at (%2): the record may be reaped at any moment")
                 .arg(r.expireAt, r.createdAt);
    if (unresolved && r.expiresInSeconds) {
        if (*r.expiresInSeconds <= 0)
            w << QStringLiteral("unresolved record expired %1 ago: its evidence may be reaped at any moment")
                     .arg(humanDuration(-*r.expiresInSeconds));
        else if (*r.expiresInSeconds < 24 * 3600)
            w << QStringLiteral("unresolved record expires in %1: settle it before its evidence is reaped")
                     .arg(humanDuration(*r.expiresInSeconds));
    }
    return w;
}

} // namespace triage
