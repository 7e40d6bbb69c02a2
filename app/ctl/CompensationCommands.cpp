// triagectl duplicates, compensate and compensations (issue #5): the Duplicate keys queue and
// idempotent compensations (DESIGN.md §1 "Compensation is a side effect too", §2, §5).
#include "Triagectl.h"

#include "Compensation.h"
#include "CsvWriter.h"
#include "Duplicates.h"
#include "TextTable.h"
#include "UpstreamSimulatorProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

QJsonValue nullable(const std::optional<QString> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

/// "1 group", "2 groups": `n` with the word in the number it takes.
QString counted(qsizetype n, const QString &singular, const QString &plural)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : plural);
}

/// A ticket id as JSON: a number when it is a whole number (today's ids), else the text.
QJsonValue ticketIdJson(const QString &id)
{
    bool ok = false;
    const qint64 n = id.trimmed().toLongLong(&ok);
    return ok ? QJsonValue(n) : QJsonValue(id);
}

QJsonObject compensationJson(const CompensationRow &r)
{
    return QJsonObject{{QStringLiteral("comp_key"), r.compKey},
                       {QStringLiteral("source_key"), r.sourceKey},
                       {QStringLiteral("biz_type"), r.bizType},
                       {QStringLiteral("action"), r.action},
                       {QStringLiteral("target"), ticketIdJson(r.target)},
                       {QStringLiteral("status"), r.status},
                       {QStringLiteral("attempts"), r.attempts},
                       {QStringLiteral("operator"), r.operatorName},
                       {QStringLiteral("reason"), r.reason},
                       {QStringLiteral("created_at"), r.createdAt},
                       {QStringLiteral("updated_at"), r.updatedAt},
                       {QStringLiteral("last_error"), nullable(r.lastError)},
                       {QStringLiteral("request"), r.request},
                       {QStringLiteral("response"), nullable(r.response)}};
}

QJsonObject attemptJson(const CompensationAttemptRow &a)
{
    return QJsonObject{{QStringLiteral("id"), a.id},
                       {QStringLiteral("kind"), a.kind},
                       {QStringLiteral("at"), a.at},
                       {QStringLiteral("http_status"), a.httpStatus ? QJsonValue(*a.httpStatus) : QJsonValue(QJsonValue::Null)},
                       {QStringLiteral("classification"), a.classification},
                       {QStringLiteral("response_preview"), nullable(a.responsePreview)},
                       {QStringLiteral("error"), nullable(a.error)}};
}

/// Exit code of a compensation outcome (DESIGN.md §5).
int compensationExitCode(const CompensationOutcome &o)
{
    using K = CompensationOutcome::Kind;
    switch (o.kind) {
    case K::Planned:
    case K::Succeeded: return ExitOk;
    case K::Existing: return ExitConflict;
    case K::Unknown: return ExitUpstream;
    case K::Failed: return ExitRefused;
    case K::Refused: return o.configError ? ExitUsage : ExitRefused;
    case K::Error: return o.dbError && o.dbError->kind == DbError::Kind::Config ? ExitUsage : ExitDatabase;
    case K::NotFound: return ExitUsage;
    }
    return ExitDatabase;
}

} // namespace

std::optional<CompensationConfigs> Triagectl::compensationsFor(Workspace &workspace, int *exitCode)
{
    if (!workspace.config().isDemo)
        return workspace.config().compensations;
    // The demo's compensations go to the upstream simulator, started for this run.
    if (!m_simulator || !m_simulator->isRunning()) {
        m_simulator = std::make_unique<UpstreamSimulatorProcess>();
        QString error;
        if (!m_simulator->start(QStringLiteral("sqlite://") + DemoWorkspace::path(), &error)) {
            message(QStringLiteral("cannot start the demo's upstream simulator: ") + error);
            *exitCode = ExitUpstream;
            return std::nullopt;
        }
    }
    return demoCompensations(m_simulator->baseUrl().toString());
}

int Triagectl::duplicates(Workspace &workspace)
{
    DuplicateFilter f;
    f.keySubstring = m_parser.value(QStringLiteral("key"));
    f.tenant = m_parser.value(QStringLiteral("tenant"));
    f.includeResolved = m_parser.isSet(QStringLiteral("all"));
    for (const auto &[name, target] : {std::pair<const char *, std::optional<UtcMicros> *>{"created-from", &f.createdFrom},
                                       std::pair<const char *, std::optional<UtcMicros> *>{"created-to", &f.createdTo}}) {
        const QString v = m_parser.value(QLatin1String(name));
        if (v.isEmpty())
            continue;
        *target = parseUtcMicros(v);
        if (!*target)
            return usage(QStringLiteral("--%1 \"%2\": ISO-8601 UTC (2026-11-29T21:55:07Z)").arg(QLatin1String(name), v));
    }
    QVector<DuplicateGroup> groups;
    std::optional<DuplicateCursor> cursor;
    do {
        // Every group the windows find, page by page (a small page would re-read the window
        // it stopped in).
        const int want = m_limit > 0 ? m_limit - int(groups.size()) : 100000;
        const auto page = fetchDuplicateGroups(workspace, f, cursor, want).result();
        if (!page.ok())
            return dbFailure(*page.error);
        groups += page->groups;
        cursor = page->next;
    } while (cursor && (m_limit == 0 || groups.size() < m_limit));

    QVector<DuplicateInconsistency> issues;
    std::optional<qint64> after = 0;
    while (after && (m_limit == 0 || issues.size() < m_limit)) {
        const auto page = fetchInconsistencies(workspace, *after, m_pageSize, f.keySubstring).result();
        if (!page.ok())
            return dbFailure(*page.error);
        issues += page->rows;
        after = page->nextRecordId;
    }
    if (m_limit > 0 && issues.size() > m_limit)
        issues.resize(m_limit);
    QVector<RegeneratedKeyStep> regenerated;
    std::optional<RegeneratedCursor> rc;
    bool firstPage = true;
    while ((firstPage || rc) && (m_limit == 0 || regenerated.size() < m_limit)) {
        firstPage = false;
        const auto page = fetchRegeneratedKeys(workspace, rc, m_pageSize, f.keySubstring).result();
        if (!page.ok())
            return dbFailure(*page.error);
        regenerated += page->steps;
        rc = page->next;
    }
    if (m_limit > 0 && regenerated.size() > m_limit)
        regenerated.resize(m_limit);

    switch (m_format) {
    case Format::Json: {
        QJsonArray g, i, r;
        for (const DuplicateGroup &x : std::as_const(groups))
            g.append(QJsonObject{{QStringLiteral("idem_key"), x.idemKey},
                                 {QStringLiteral("size"), x.size},
                                 {QStringLiteral("live"), x.live},
                                 {QStringLiteral("tenants"), QJsonArray::fromStringList(x.tenants)},
                                 {QStringLiteral("first_created_at"), x.firstCreatedAt},
                                 {QStringLiteral("last_created_at"), x.lastCreatedAt},
                                 {QStringLiteral("record_status"), x.recordStatus},
                                 {QStringLiteral("resolved"), x.resolved}});
        for (const DuplicateInconsistency &x : std::as_const(issues))
            i.append(QJsonObject{{QStringLiteral("kind"), inconsistencyKindName(x.kind)},
                                 {QStringLiteral("idem_key"), x.idemKey},
                                 {QStringLiteral("record_id"), x.recordId},
                                 {QStringLiteral("record_status"), x.recordStatus},
                                 {QStringLiteral("ticket_id"), x.ticketId},
                                 {QStringLiteral("detail"), x.detail}});
        for (const RegeneratedKeyStep &x : std::as_const(regenerated))
            r.append(QJsonObject{{QStringLiteral("task_id"), x.taskId},
                                 {QStringLiteral("step_id"), x.stepId},
                                 {QStringLiteral("attempts"), x.attempts},
                                 {QStringLiteral("keys"), QJsonArray::fromStringList(x.keys)}});
        print(QJsonDocument(QJsonObject{{QStringLiteral("groups"), g},
                                        {QStringLiteral("inconsistencies"), i},
                                        {QStringLiteral("regenerated_keys"), r}})
                  .toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        QByteArray out = CsvWriter::record({QStringLiteral("idem_key"), QStringLiteral("size"), QStringLiteral("live"),
                                            QStringLiteral("tenants"), QStringLiteral("first_created_at"),
                                            QStringLiteral("last_created_at"), QStringLiteral("record_status"), QStringLiteral("resolved")});
        for (const DuplicateGroup &x : std::as_const(groups))
            out += CsvWriter::record({x.idemKey, QString::number(x.size), QString::number(x.live), x.tenants.join(QLatin1Char(' ')),
                                      x.firstCreatedAt, x.lastCreatedAt, x.recordStatus,
                                      x.resolved ? QStringLiteral("true") : QStringLiteral("false")});
        print(out);
        break;
    }
    case Format::Table: {
        TextTable t({QStringLiteral("IDEM_KEY"), QStringLiteral("TICKETS"), QStringLiteral("LIVE"), QStringLiteral("TENANTS"),
                     QStringLiteral("FIRST CREATED (UTC)"), QStringLiteral("LAST CREATED (UTC)"), QStringLiteral("RECORD")});
        for (const DuplicateGroup &x : std::as_const(groups))
            t.addRow({x.idemKey, QString::number(x.size), QString::number(x.live), x.tenants.join(QLatin1Char(' ')), x.firstCreatedAt,
                      x.lastCreatedAt, x.recordStatus});
        QByteArray out = t.render();
        out += QStringLiteral("%1%2%3\n")
                   .arg(counted(groups.size(), QStringLiteral("duplicate-key group"), QStringLiteral("duplicate-key groups")))
                   .arg(f.includeResolved ? QString() : QStringLiteral(" (unresolved)"))
                   .arg(cursor ? QStringLiteral("; --limit reached (--limit 0 lists all)") : QString())
                   .toUtf8();
        TextTable ti({QStringLiteral("KIND"), QStringLiteral("IDEM_KEY"), QStringLiteral("RECORD"), QStringLiteral("TICKET"),
                      QStringLiteral("DETAIL")});
        for (const DuplicateInconsistency &x : std::as_const(issues))
            ti.addRow({inconsistencyKindName(x.kind), x.idemKey, x.recordStatus, QString::number(x.ticketId), x.detail});
        out += "\n" + ti.render()
            + (counted(issues.size(), QStringLiteral("inconsistency"), QStringLiteral("inconsistencies")) + QLatin1Char('\n')).toUtf8();
        TextTable tr({QStringLiteral("TASK_ID"), QStringLiteral("STEP_ID"), QStringLiteral("ATTEMPTS"), QStringLiteral("KEYS")});
        for (const RegeneratedKeyStep &x : std::as_const(regenerated))
            tr.addRow({x.taskId, x.stepId, QString::number(x.attempts), x.keys.join(QLatin1Char(' '))});
        out += "\n" + tr.render()
            + (counted(regenerated.size(), QStringLiteral("step"), QStringLiteral("steps")) + QStringLiteral(" with regenerated keys\n")).toUtf8();
        print(out);
        break;
    }
    }
    return ExitOk;
}

int Triagectl::compensate(Workspace &workspace, const QString &key)
{
    const bool resume = m_parser.isSet(QStringLiteral("resume"));
    CompensationRequest req;
    if (!resume) {
        req.sourceKey = key;
        req.action = m_parser.value(QStringLiteral("action")).trimmed();
        req.target = m_parser.value(QStringLiteral("target")).trimmed();
        req.reason = m_parser.value(QStringLiteral("reason"));
        req.dryRun = m_parser.isSet(QStringLiteral("dry-run"));
        req.override = m_parser.isSet(QStringLiteral("override"));
        if (req.action.isEmpty() || req.target.isEmpty())
            return usage(QStringLiteral("compensate: --action and --target are required"));
        if (req.reason.trimmed().isEmpty())
            return usage(QStringLiteral("compensate: --reason is required (it is audited)"));
    } else if (m_parser.isSet(QStringLiteral("dry-run"))) {
        return usage(QStringLiteral("compensate --resume re-sends a stored request: --dry-run does not apply"));
    } else if (m_parser.isSet(QStringLiteral("override"))) {
        return usage(QStringLiteral("compensate --resume: --override applies when a compensation starts, not to a resume"));
    }
    req.operatorName = workspace.config().operatorName;
    int code = ExitOk;
    const auto configs = compensationsFor(workspace, &code);
    if (!configs)
        return code;
    CompensationRunner runner(workspace, *configs);
    const CompensationOutcome o = resume ? runner.resume(m_parser.value(QStringLiteral("resume")), req.operatorName).result()
                                         : runner.start(req).result();
    if (o.kind == CompensationOutcome::Kind::NotFound && m_format != Format::Json) {
        message(o.message);
        return compensationExitCode(o);
    }
    if (m_format == Format::Json) {
        QJsonObject j{{QStringLiteral("outcome"), compensationOutcomeName(o.kind)},
                      {QStringLiteral("comp_key"), o.compKey},
                      {QStringLiteral("message"), o.message}};
        if (!o.request.url.isEmpty())
            j.insert(QStringLiteral("request"), QJsonDocument::fromJson(o.request.toJson()).object());
        if (o.row)
            j.insert(QStringLiteral("compensation"), compensationJson(*o.row));
        QJsonArray h;
        for (const CompensationAttemptRow &a : o.history)
            h.append(attemptJson(a));
        j.insert(QStringLiteral("attempts"), h);
        if (o.ticketAfter)
            j.insert(QStringLiteral("ticket_status_after"), nullable(o.ticketAfter->status));
        print(QJsonDocument(j).toJson(QJsonDocument::Indented));
    } else {
        QByteArray out;
        auto line = [&](const QString &s) { out += (s + QLatin1Char('\n')).toUtf8(); };
        line(QStringLiteral("outcome:    %1").arg(compensationOutcomeName(o.kind)));
        if (!o.compKey.isEmpty())
            line(QStringLiteral("comp_key:   %1").arg(o.compKey));
        if (!o.request.url.isEmpty()) {
            // A refused or planned compensation sends nothing: say so next to the request.
            const bool unsent = o.kind == CompensationOutcome::Kind::Refused || o.kind == CompensationOutcome::Kind::Planned;
            line(QStringLiteral("request:    %1 %2 (X-Idempotency-Key: %3)%4")
                     .arg(QString::fromLatin1(o.request.method), o.request.url, o.compKey,
                          unsent ? QStringLiteral(" — not sent") : QString()));
        }
        if (o.kind == CompensationOutcome::Kind::Refused)
            line(QStringLiteral("reason:     %1").arg(o.message));
        if (o.row)
            line(QStringLiteral("status:     %1 after %2").arg(o.row->status, counted(o.row->attempts, QStringLiteral("call"), QStringLiteral("calls"))));
        for (const CompensationAttemptRow &a : o.history)
            line(QStringLiteral("attempt:    %1 %2 %3 %4").arg(a.at, a.kind, a.classification,
                                                               a.httpStatus ? QStringLiteral("HTTP %1").arg(*a.httpStatus)
                                                                            : a.error.value_or(QString())));
        if (o.ticketAfter)
            line(QStringLiteral("ticket:     #%1 now %2").arg(o.ticketAfter->id).arg(o.ticketAfter->status.value_or(QStringLiteral("NULL"))));
        print(out);
    }
    if (o.kind != CompensationOutcome::Kind::Succeeded && o.kind != CompensationOutcome::Kind::Planned)
        message(o.message);
    return compensationExitCode(o);
}

int Triagectl::compensations(Workspace &workspace)
{
    CompensationQuery q;
    q.limit = m_limit;
    q.sourceKey = m_parser.value(QStringLiteral("key"));
    if (m_parser.isSet(QStringLiteral("status"))) {
        q.status = compensationStatusFromName(m_parser.value(QStringLiteral("status")));
        if (!q.status)
            return usage(QStringLiteral("--status: INTENT, SUCCEEDED, FAILED or UNKNOWN"));
    }
    CompensationRunner runner(workspace);
    const auto rows = runner.list(q).result();
    if (!rows.ok())
        return dbFailure(*rows.error);
    switch (m_format) {
    case Format::Json: {
        QJsonArray a;
        for (const CompensationRow &r : *rows) {
            QJsonObject o = compensationJson(r);
            const auto h = runner.history(r.compKey).result();
            QJsonArray ha;
            if (h.ok())
                for (const CompensationAttemptRow &x : *h)
                    ha.append(attemptJson(x));
            o.insert(QStringLiteral("history"), ha);
            a.append(o);
        }
        print(QJsonDocument(a).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        QByteArray out = CsvWriter::record({QStringLiteral("comp_key"), QStringLiteral("source_key"), QStringLiteral("action"),
                                            QStringLiteral("target"), QStringLiteral("status"), QStringLiteral("attempts"),
                                            QStringLiteral("operator"), QStringLiteral("created_at"), QStringLiteral("updated_at"),
                                            QStringLiteral("last_error")});
        for (const CompensationRow &r : *rows)
            out += CsvWriter::record({r.compKey, r.sourceKey, r.action, r.target, r.status, QString::number(r.attempts), r.operatorName,
                                      r.createdAt, r.updatedAt, r.lastError.value_or(QString())});
        print(out);
        break;
    }
    case Format::Table: {
        TextTable t({QStringLiteral("COMP_KEY"), QStringLiteral("STATUS"), QStringLiteral("CALLS"), QStringLiteral("TARGET"),
                     QStringLiteral("SOURCE KEY"), QStringLiteral("OPERATOR"), QStringLiteral("UPDATED (UTC)")});
        for (const CompensationRow &r : *rows)
            t.addRow({r.compKey, r.status, QString::number(r.attempts), r.target, r.sourceKey, r.operatorName, r.updatedAt});
        QByteArray out = t.render();
        out += (counted(rows->size(), QStringLiteral("compensation"), QStringLiteral("compensations")) + QLatin1Char('\n')).toUtf8();
        print(out);
        break;
    }
    }
    return ExitOk;
}

} // namespace triage::ctl
