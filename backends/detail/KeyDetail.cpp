#include "KeyDetail.h"

#include "ColumnText.h"
#include "JsonText.h"
#include "Queue.h"
#include "RawJson.h"
#include "RecordStatus.h"
#include "TextEscape.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlField>
#include <QSqlRecord>

#include <algorithm>

namespace triage {

namespace {

/// A text column read through SqlDialect::rawText(): exact when valid UTF-8, else escaped
/// (TextEscape.h) and `column` added to `escaped`.
NullableText rawText(const QVariant &v, const char *column, QStringList &escaped)
{
    StoredText t = decodeStoredText(v);
    if (t.escaped)
        escaped << QLatin1String(column);
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

/// "PROCESSING" from a state JSON text ({"status":"PROCESSING",…}), or "?".
QString stateName(const QString &stateJson)
{
    const QJsonObject o = QJsonDocument::fromJson(stateJson.toUtf8()).object();
    const QString s = o.value(QStringLiteral("status")).toString();
    return s.isEmpty() ? QStringLiteral("?") : s;
}

} // namespace

namespace detail_sql {

std::optional<RecordDetail> readRecord(DbSession &session, const WorkspaceConfig &config, const QString &key)
{
    const SqlDialect &d = session.dialect();
    const bool hasVersion = session.hasColumn(QStringLiteral("idempotency_record"), QStringLiteral("version"));
    SqlBuilder b;
    const QString sql = QStringLiteral("SELECT %1 AS tc_created, %2 AS tc_updated, %3 AS tc_expire, %4 AS tc_age, "
                                       "CASE WHEN expire_at IS NULL THEN NULL ELSE -(%5) END AS tc_expires_in, %6 AS tc_now, "
                                       "%7 AS tc_snapshot, r.* FROM idempotency_record r WHERE idem_key = %8")
                            .arg(d.timeText(QStringLiteral("r.created_at")), d.timeText(QStringLiteral("r.updated_at")),
                                 d.timeText(QStringLiteral("r.expire_at")), d.secondsSince(QStringLiteral("r.updated_at")),
                                 d.secondsSince(QStringLiteral("r.expire_at")), d.nowText(),
                                 d.rawText(QStringLiteral("r.result_snapshot")), b.bind(key));
    QSqlQuery q = session.exec(sql, b);
    if (!q.next())
        return std::nullopt;
    const QSqlRecord rec = q.record();
    RecordDetail r;
    r.hasVersionColumn = hasVersion;
    r.createdAt = canonicalTimeText(q.value(0));
    r.updatedAt = canonicalTimeText(q.value(1));
    r.expireAt = canonicalTimeText(q.value(2));
    r.ageSeconds = q.value(3).toDouble();
    if (!q.value(4).isNull())
        r.expiresInSeconds = q.value(4).toDouble();
    r.serverNow = canonicalTimeText(q.value(5));
    r.resultSnapshot = rawText(q.value(6), "result_snapshot", r.escapedColumns);
    for (int i = 7; i < rec.count(); ++i) {
        const QString name = rec.fieldName(i).toLower();
        const QVariant v = q.value(i);
        QString shown;
        if (v.isNull())
            shown = QStringLiteral("NULL");
        else if (name == QLatin1String("created_at"))
            shown = r.createdAt;
        else if (name == QLatin1String("updated_at"))
            shown = r.updatedAt;
        else if (name == QLatin1String("expire_at"))
            shown = r.expireAt;
        else if (name == QLatin1String("result_snapshot"))
            shown = QStringLiteral("(%1 characters)").arg(r.resultSnapshot ? r.resultSnapshot->size() : 0);
        else
            shown = *columnText(v);
        r.allColumns.append({name, shown});
        if (name == QLatin1String("id"))
            r.id = v.toLongLong();
        else if (name == QLatin1String("idem_key"))
            r.idemKey = v.toString();
        else if (name == QLatin1String("biz_type"))
            r.bizType = columnText(v);
        else if (name == QLatin1String("status")) {
            r.statusText = recordStatusText(v);
            r.statusCode = recordStatusCode(v); // nullopt for NULL and non-integers (never rounded)
        } else if (name == QLatin1String("version") && !v.isNull())
            r.version = v.toLongLong();
    }
    const BizTypeConfig bt = config.bizType(r.bizType.value_or(QString()));
    r.processingTimeoutS = bt.processingTimeoutS;
    r.failedEvidence = bt.failedEvidence;
    r.failedEvidenceMaxAgeS = bt.failedEvidenceMaxAgeS;
    r.upstreamConfigured = config.upstreams.contains(r.bizType.value_or(QString()))
        || config.upstreamsOnDemand.contains(r.bizType.value_or(QString()));
    r.tenant = tenantFromKey(r.idemKey, bt.tenantPattern);
    r.stale = r.statusCode == Processing && r.ageSeconds > r.processingTimeoutS;
    return r;
}

QVector<TicketRow> readTickets(DbSession &session, const QString &key)
{
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT id, idem_key, tenant_id, %1, status, %2, %3, %4 FROM ticket "
                                              "WHERE idem_key = %5 ORDER BY created_at, id")
                                   .arg(d.rawText(QStringLiteral("title")), d.rawText(QStringLiteral("payload")),
                                        d.timeText(QStringLiteral("created_at")), d.timeText(QStringLiteral("updated_at")), b.bind(key)),
                               b);
    QVector<TicketRow> rows;
    while (q.next()) {
        TicketRow t;
        t.id = BusinessId::fromColumn(q.value(0)); // exactly as stored (BIGINT, VARCHAR or UUID)
        t.idemKey = columnText(q.value(1));
        t.tenantId = columnText(q.value(2));
        t.title = rawText(q.value(3), "title", t.escapedColumns);
        t.status = columnText(q.value(4));
        t.payload = rawText(q.value(5), "payload", t.escapedColumns);
        t.createdAt = canonicalTimeText(q.value(6));
        t.updatedAt = canonicalTimeText(q.value(7));
        rows.append(std::move(t));
    }
    return rows;
}

QVector<IntentAttempt> readAttempts(DbSession &session, const QString &key)
{
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    QSqlQuery q = session.exec(
        QStringLiteral("SELECT id, task_id, step_id, action, idem_key, status, %1, %2, %3, %4, "
                       "%5, actor, %6, %7 FROM intent_log WHERE idem_key = %8 ORDER BY created_at, id")
            .arg(d.rawText(QStringLiteral("request")), d.rawText(QStringLiteral("response")), d.rawText(QStringLiteral("error")),
                 d.rawText(QStringLiteral("state_before")), d.rawText(QStringLiteral("state_after")),
                 d.timeText(QStringLiteral("created_at")), d.timeText(QStringLiteral("updated_at")), b.bind(key)),
        b);
    QVector<IntentAttempt> rows;
    while (q.next()) {
        IntentAttempt a;
        a.id = q.value(0).toLongLong();
        a.taskId = columnText(q.value(1));
        a.stepId = columnText(q.value(2));
        a.action = columnText(q.value(3));
        a.idemKey = columnText(q.value(4));
        a.status = columnText(q.value(5));
        a.request = rawText(q.value(6), "request", a.escapedColumns);
        a.response = rawText(q.value(7), "response", a.escapedColumns);
        a.error = rawText(q.value(8), "error", a.escapedColumns);
        a.stateBefore = rawText(q.value(9), "state_before", a.escapedColumns);
        a.stateAfter = rawText(q.value(10), "state_after", a.escapedColumns);
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
        if (t.updatedAt != t.createdAt)
            add(t.updatedAt, QStringLiteral("ticket"), QStringLiteral("updated"),
                QStringLiteral("ticket #%1 last updated: %2").arg(t.id.text()).arg(t.status.value_or(QStringLiteral("NULL"))), t.id);
    }
    for (const AuditEntry &a : detail.audit) {
        const QString summary = a.toState.isEmpty()
            ? QStringLiteral("%1 by %2: %3").arg(a.action, a.operatorName, oneLine(a.reason, 90))
            : QStringLiteral("%1 by %2: %3 → %4 (%5): %6")
                  .arg(a.action, a.operatorName, stateName(a.fromState), stateName(a.toState), a.outcome, oneLine(a.reason, 60));
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
            break;
        }
        d.keptFromEarlier << role;
    }
    if (!d.keptFromEarlier.isEmpty())
        d.timeline = buildTimeline(d);
    return d;
}

QStringList storedTextWarnings(const KeyDetail &d)
{
    QStringList w;
    const QString scheme = QStringLiteral("shown with each invalid byte as \\xHH and each backslash doubled "
                                          "(DESIGN.md §4 \"Odd bytes\")");
    if (d.record && !d.record->escapedColumns.isEmpty())
        w << QStringLiteral("idempotency_record.%1 is not valid UTF-8: %2").arg(d.record->escapedColumns.join(QStringLiteral(", ")), scheme);
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
    summarise(QStringLiteral("ticket"), ticketIds, QStringLiteral("ticket"));
    summarise(QStringLiteral("intent_log"), attemptIds, QStringLiteral("attempt"));
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
