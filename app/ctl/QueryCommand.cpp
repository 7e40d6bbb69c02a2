// triagectl query: ask the business system's own query API about one key or a whole
// filtered queue, print the evidence and the suggested verdict (DESIGN.md §6), and record
// each query in triage_audit so it shows on the key's timeline.
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "UpstreamCheck.h"
#include "UpstreamSimulatorProcess.h"
#include "ConsoleSchema.h"
#include "Workspace.h"
#include "DemoWorkspace.h"
#include "Queue.h"
#include "KeyDetail.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace triage::ctl {

namespace {

class QueryCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("query"), QStringLiteral("query KEY"),
            QStringLiteral("Ask the upstream what happened to a key (or every key of a queue); audited."),
            QStringLiteral("query KEY  |  query --queue QUEUE [filters] [--concurrency N] [--pause-after K]"),
            QStringLiteral("Ask the business system's own query API (per biz_type upstream_* settings; the demo starts\n"
                           "its upstream simulator) what happened, print the evidence and the suggested verdict with\n"
                           "its reason (DESIGN.md §6), and record the query in triage_audit (the key's timeline).\n"
                           "With --queue: every key of the queue, at most N requests in flight (default 6), stopping\n"
                           "after K consecutive unusable answers (default 10; 0 = never). Exit 5 when an answer was\n"
                           "unusable (timeout, 5xx, HTML, not configured, …)."),
            QList<QCommandLineOption>{
                option("queue", QStringLiteral("Every key of this queue instead of one KEY."), QStringLiteral("QUEUE")),
                option("concurrency", QStringLiteral("With --queue: requests in flight (1..6, default 6)."), QStringLiteral("N"),
                       QStringLiteral("6")),
                option("pause-after", QStringLiteral("With --queue: stop after K consecutive unusable answers (default 10; 0 = never)."),
                       QStringLiteral("K"), QStringLiteral("10")),
            } << queueFilterOptions(),
            -1, QStringLiteral("queue"), false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        bool ok = false;
        m_concurrency = c.parser.value(QStringLiteral("concurrency")).trimmed().toInt(&ok);
        if (!ok || m_concurrency < 1 || m_concurrency > 6)
            return c.out.usage(QStringLiteral("--concurrency: a number from 1 to 6 (Qt opens at most 6 connections per host)"));
        m_pauseAfter = c.parser.value(QStringLiteral("pause-after")).trimmed().toInt(&ok);
        if (!ok || m_pauseAfter < 0)
            return c.out.usage(QStringLiteral("--pause-after: a number of answers, 0 for never"));
        if (!keyArgumentOk(c, QStringLiteral("query"), true))
            return ExitUsage;
        if (!c.args.isEmpty())
            return ExitOk;
        m_queue = readQueueRequest(c, c.parser.value(QStringLiteral("queue")));
        return m_queue ? ExitOk : ExitUsage;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        const QString key = c.args.value(0);
        const auto upstreams = upstreamsFor(workspace, c.out);
        if (!upstreams)
            return ExitUpstream;
        UpstreamClient client(*upstreams);
        if (!workspace.config().readOnly) {
            // Every answer is recorded in triage_audit: a console older than the database's
            // console schema asks nothing it could not record (DESIGN.md §10).
            const Outcome<Done> writable = workspace.worker(DbRole::Idempotency)
                                               .run<Done>([](DbSession &s) {
                                                   requireKnownConsoleSchema(s);
                                                   return Done{};
                                               })
                                               .result();
            if (!writable.ok())
                return c.out.dbFailure(*writable.error);
        }
        if (!key.isEmpty()) {
            const UpstreamCheck check = checkUpstream(workspace, client, key).result();
            const KeyDetail &d = check.detail;
            if (!d.record && d.tickets.isEmpty() && d.attempts.isEmpty() && d.errors.isEmpty()) {
                c.out.message(QStringLiteral("no record, ticket or intent-log entry has key \"%1\"").arg(key));
                return ExitUsage;
            }
            if (c.out.format() == Format::Json) {
                c.out.print(check.toJson() + '\n');
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
                c.out.print(out);
            }
            for (const DbError &err : d.errors)
                c.out.message(err.message);
            if (!d.errors.isEmpty())
                return ExitDatabase;
            return check.evidence.isUnusable() ? ExitUpstream : ExitOk;
        }

        // Bulk: every key of the queue (records and intent steps), N requests in flight.
        QVector<QueueRow> rows;
        if (const auto error = fetchQueueRows(workspace, *m_queue, c.limit, kDefaultPageSize, &rows))
            return c.out.dbFailure(*error);
        QStringList keys;
        for (const QueueRow &row : rows)
            if (!keys.contains(row.idemKey))
                keys << row.idemKey;
        QVector<QFuture<KeyDetail>> loading;
        for (const QString &k : keys)
            loading << loadKeyDetail(workspace, k);
        QVector<KeyDetail> details;
        for (auto &f : loading)
            details << f.result();
        UpstreamBulkOptions options;
        options.concurrency = m_concurrency;
        options.pauseAfterUnusable = m_pauseAfter;
        bool pausedStop = false;
        // Each answer is recorded in triage_audit as it arrives; a failed write stops the run.
        auto bulk = checkUpstreamMany(workspace, client, details, options, [&pausedStop](const UpstreamBulkPause &) {
            pausedStop = true; // no one to ask on a command line: stop, do not hammer an outage
            return UpstreamBulkDecision::Stop;
        });
        const UpstreamBulkCheckReport bulkReport = bulk->report().result();
        const UpstreamBulkReport &report = bulkReport.run;
        QByteArrayList json; // each check's own JSON, spliced: raw texts stay byte-exact
        TextTable table({QStringLiteral("VERDICT"), QStringLiteral("UPSTREAM"), QStringLiteral("KIND"), QStringLiteral("MS"),
                         QStringLiteral("AUDIT"), QStringLiteral("IDEM_KEY")});
        QByteArray csv = CsvWriter::record({QStringLiteral("idem_key"), QStringLiteral("verdict"), QStringLiteral("upstream"),
                                            QStringLiteral("kind"), QStringLiteral("elapsed_ms"), QStringLiteral("audit_id"),
                                            QStringLiteral("reason")});
        int unusable = 0, answered = 0;
        for (int i = 0; i < bulkReport.checks.size(); ++i) {
            if (!bulkReport.answered.value(i))
                continue; // never sent (stopped after the pause or after a failed audit write)
            const UpstreamCheck &check = bulkReport.checks.at(i);
            ++answered;
            unusable += check.evidence.isUnusable();
            const QString kind = check.evidence.classification == UpstreamClass::Unusable ? unusableKindName(check.evidence.kind) : QString();
            const QString audit = check.auditId ? QStringLiteral("#%1").arg(check.auditId) : QStringLiteral("NOT RECORDED");
            table.addRow({verdictName(check.verdict.kind), upstreamClassName(check.evidence.classification), kind,
                          check.evidence.elapsedMs < 0 ? QStringLiteral("-") : QString::number(check.evidence.elapsedMs), audit,
                          check.detail.idemKey});
            csv += CsvWriter::record({check.detail.idemKey, verdictName(check.verdict.kind), upstreamClassName(check.evidence.classification),
                                      kind, QString::number(check.evidence.elapsedMs),
                                      check.auditId ? QString::number(check.auditId) : QString(), check.verdict.reason});
            json << check.toJson();
        }
        switch (c.out.format()) {
        case Format::Json: c.out.print("[" + json.join(",\n") + "]\n"); break;
        case Format::Csv: c.out.print(csv); break;
        case Format::Table:
            c.out.print(table.render());
            c.out.print(QStringLiteral("%1 of %2 key(s) queried: %3 found, %4 not found, %5 ambiguous, %6 unusable (%7 timed out)%8\n")
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
        if (bulkReport.auditError) {
            // Nothing is lost without a word: say which queries the audit trail does not hold.
            const QStringList answeredLost = bulkReport.answeredUnrecordedKeys();
            const QStringList lost = bulkReport.unrecordedKeys();
            c.out.message(QStringLiteral("stopped: the audit write failed (%1); no further upstream calls were made")
                        .arg(bulkReport.auditError->message));
            c.out.message(QStringLiteral("not recorded in triage_audit (%1 of %2 key(s)): %3")
                        .arg(lost.size())
                        .arg(keys.size())
                        .arg(lost.join(QStringLiteral(", "))));
            if (!answeredLost.isEmpty())
                c.out.message(QStringLiteral("answered but not recorded (query again to record them): %1").arg(answeredLost.join(QStringLiteral(", "))));
            return ExitDatabase;
        }
        return unusable > 0 || pausedStop ? ExitUpstream : ExitOk;
    }

private:
    /// The upstream settings to use: the configured ones, or for the demo the upstream
    /// simulator (started here); nullopt after a message.
    std::optional<QMap<QString, UpstreamConfig>> upstreamsFor(Workspace &workspace, Output &out)
    {
        if (!workspace.config().upstreams.isEmpty() || !workspace.config().isDemo)
            return workspace.config().upstreams;
        // The demo's upstream is the simulator, started on a free loopback port for this run.
        m_simulator = startDemoSimulator(out);
        if (!m_simulator)
            return std::nullopt;
        return demoUpstreams(m_simulator->baseUrl());
    }

    std::optional<QueueRequest> m_queue; ///< query --queue
    int m_concurrency = 6;               ///< query --queue: requests in flight
    int m_pauseAfter = 10;               ///< query --queue: stop after K consecutive unusable answers
    std::unique_ptr<UpstreamSimulatorProcess> m_simulator; ///< the demo's upstream, while the command runs
};

} // namespace

std::unique_ptr<Command> makeQueryCommand()
{
    return std::make_unique<QueryCommand>();
}

} // namespace triage::ctl
