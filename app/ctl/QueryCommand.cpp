// triagectl query: ask the business system's own query API about one key or a whole
// filtered queue (issue 4), print the evidence and the suggested verdict (DESIGN.md §6),
// and record each query in triage_audit so it shows on the key's timeline.
#include "Triagectl.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "UpstreamCheck.h"
#include "UpstreamSimulatorProcess.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace triage::ctl {

std::optional<QMap<QString, UpstreamConfig>> Triagectl::upstreamsFor(Workspace &workspace, int *exitCode)
{
    if (!workspace.config().upstreams.isEmpty() || !workspace.config().isDemo)
        return workspace.config().upstreams;
    // The demo's upstream is the simulator, started on a free loopback port for this run.
    m_simulator = std::make_unique<UpstreamSimulatorProcess>();
    QString error;
    if (!m_simulator->start(QStringLiteral("sqlite://") + DemoWorkspace::path(), &error)) {
        message(QStringLiteral("cannot start the demo's upstream simulator: ") + error);
        *exitCode = ExitUpstream;
        return std::nullopt;
    }
    return demoUpstreams(m_simulator->baseUrl());
}

int Triagectl::query(Workspace &workspace, const QString &key)
{
    int code = ExitOk;
    const auto upstreams = upstreamsFor(workspace, &code);
    if (!upstreams)
        return code;
    UpstreamClient client(*upstreams);
    if (!key.isEmpty()) {
        const UpstreamCheck check = checkUpstream(workspace, client, key).result();
        const KeyDetail &d = check.detail;
        if (!d.record && d.tickets.isEmpty() && d.attempts.isEmpty() && d.errors.isEmpty()) {
            message(QStringLiteral("no record, ticket or intent-log entry has key \"%1\"").arg(key));
            return ExitUsage;
        }
        if (m_format == Format::Json) {
            print(check.toJson() + '\n');
        } else {
            const UpstreamEvidence &e = check.evidence;
            QByteArray out;
            auto line = [&](const QString &s) { out += (s + QLatin1Char('\n')).toUtf8(); };
            line(QStringLiteral("idem_key:   %1").arg(key));
            line(QStringLiteral("verdict:    %1 (DESIGN.md §6 row %2)").arg(verdictName(check.verdict.kind)).arg(check.verdict.row));
            line(QStringLiteral("reason:     %1").arg(check.verdict.reason));
            if (check.verdict.snapshot)
                line(QStringLiteral("snapshot:   %1 (from %2)").arg(*check.verdict.snapshot, check.verdict.snapshotSource));
            line(QStringLiteral("upstream:   %1%2 — %3")
                     .arg(upstreamClassName(e.classification),
                          e.classification == UpstreamClass::Unusable ? QStringLiteral(" (%1)").arg(unusableKindName(e.kind)) : QString(),
                          e.message));
            if (e.sent) {
                line(QStringLiteral("request:    %1 %2").arg(QString::fromLatin1(e.request.method), e.request.url));
                line(QStringLiteral("response:   HTTP %1 %2, %3, %4 ms")
                         .arg(e.httpStatus ? QString::number(*e.httpStatus) : QStringLiteral("-"))
                         .arg(e.reasonPhrase, e.contentType.isEmpty() ? QStringLiteral("no content type") : e.contentType)
                         .arg(e.elapsedMs));
                if (!e.bodyPreview.isEmpty())
                    line(QStringLiteral("body:       %1").arg(e.bodyPreview));
            }
            for (const QString &w : e.warnings)
                line(QStringLiteral("warning:    %1").arg(w));
            line(check.auditId ? QStringLiteral("recorded:   triage_audit #%1 (on the key's timeline)").arg(check.auditId)
                               : QStringLiteral("recorded:   no — %1").arg(check.recordNote));
            print(out);
        }
        for (const DbError &err : d.errors)
            message(err.message);
        if (!d.errors.isEmpty())
            return ExitDatabase;
        return check.evidence.isUnusable() ? ExitUpstream : ExitOk;
    }

    // Bulk: every key of the queue (records and intent steps), N requests in flight.
    QVector<QueueRow> rows;
    if (const auto error = fetchRows(workspace, *m_queue, &rows))
        return dbFailure(*error);
    QStringList keys;
    for (const QueueRow &row : rows)
        if (!keys.contains(row.idemKey))
            keys << row.idemKey;
    QVector<QFuture<KeyDetail>> loading;
    for (const QString &k : keys)
        loading << workspace.loadKeyDetail(k);
    QVector<KeyDetail> details;
    QVector<UpstreamQuery> queries;
    for (auto &f : loading) {
        details << f.result();
        queries << makeUpstreamQuery(workspace.config(), details.last());
    }
    UpstreamBulkOptions options;
    options.concurrency = m_concurrency;
    options.pauseAfterUnusable = m_pauseAfter;
    bool pausedStop = false;
    auto run = client.queryMany(queries, options, [&pausedStop](const UpstreamBulkPause &) {
        pausedStop = true; // no one to ask on a command line: stop, do not hammer an outage
        return UpstreamBulkDecision::Stop;
    });
    const UpstreamBulkReport report = run->report().result();
    QByteArrayList json; // each check's own JSON, spliced: raw texts stay byte-exact
    TextTable table({QStringLiteral("VERDICT"), QStringLiteral("UPSTREAM"), QStringLiteral("KIND"), QStringLiteral("MS"),
                     QStringLiteral("IDEM_KEY")});
    QByteArray csv = CsvWriter::record({QStringLiteral("idem_key"), QStringLiteral("verdict"), QStringLiteral("upstream"),
                                        QStringLiteral("kind"), QStringLiteral("elapsed_ms"), QStringLiteral("reason")});
    int unusable = 0, answered = 0;
    for (int i = 0; i < details.size(); ++i) {
        UpstreamCheck check;
        check.detail = details[i];
        check.evidence = report.results.value(i);
        if (check.evidence.kind == UnusableKind::Cancelled || (!check.evidence.sent && check.evidence.classification != UpstreamClass::NotConfigured))
            continue; // never sent (stopped after the pause)
        ++answered;
        check.verdict = suggestVerdict(verdictInputFrom(check.detail, &check.evidence));
        check.auditId = recordUpstreamCheck(workspace, check, &check.recordNote);
        unusable += check.evidence.isUnusable();
        const QString kind = check.evidence.classification == UpstreamClass::Unusable ? unusableKindName(check.evidence.kind) : QString();
        table.addRow({verdictName(check.verdict.kind), upstreamClassName(check.evidence.classification), kind,
                      check.evidence.elapsedMs < 0 ? QStringLiteral("-") : QString::number(check.evidence.elapsedMs), keys[i]});
        csv += CsvWriter::record({keys[i], verdictName(check.verdict.kind), upstreamClassName(check.evidence.classification), kind,
                                  QString::number(check.evidence.elapsedMs), check.verdict.reason});
        json << check.toJson();
    }
    switch (m_format) {
    case Format::Json: print("[" + json.join(",\n") + "]\n"); break;
    case Format::Csv: print(csv); break;
    case Format::Table:
        print(table.render());
        print(QStringLiteral("%1 of %2 key(s) queried: %3 found, %4 not found, %5 ambiguous, %6 unusable (%7 timed out)%8\n")
                  .arg(answered)
                  .arg(keys.size())
                  .arg(report.found)
                  .arg(report.notFound)
                  .arg(report.ambiguous)
                  .arg(report.unusable)
                  .arg(report.timedOut)
                  .arg(pausedStop ? QStringLiteral("; stopped after %1 consecutive unusable answers").arg(m_pauseAfter) : QString())
                  .toUtf8());
        break;
    }
    return unusable > 0 || pausedStop ? ExitUpstream : ExitOk;
}

} // namespace triage::ctl
