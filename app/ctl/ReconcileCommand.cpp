// triagectl reconcile: one unattended reconciliation pass for cron (DESIGN.md §8
// "Reconciliation"): settle what the evidence allows, escalate the rest with reasons.
#include "Command.h"
#include "CommandOptions.h"

#include "TextTable.h"

#include "TextEscape.h"

#include "BizTypeCheck.h"
#include "DemoWorkspace.h"
#include "Reconcile.h"
#include "UpstreamClient.h"
#include "UpstreamSimulatorProcess.h"
#include "Workspace.h"

namespace triage::ctl {

namespace {

class ReconcileCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("reconcile"), QStringLiteral("reconcile"),
            QStringLiteral("Settle stale PROCESSING records the evidence allows; escalate the rest (for cron)."),
            QStringLiteral("reconcile [--biz-type T] [--dry-run] [--limit N] [--concurrency N] [--breaker-after K]"),
            QStringLiteral("For each stale PROCESSING record (oldest first; the global --limit N takes the N oldest,\n"
                           "default all, not 100 as for listings; 0 = all): ask its\n"
                           "upstream (at most N requests in flight, Retry-After honoured, stop after K consecutive\n"
                           "unusable answers: the rest escalate as UPSTREAM_UNUSABLE), record every answer in\n"
                           "triage_audit, decide by DESIGN.md §8's table: SUCCESS applied by compare-and-set\n"
                           "(operator \"reconciler\"); FAILED only with the biz_type's reconcile = auto and two\n"
                           "NOT_FOUND answers at least reconcile_confirm_delay apart; everything else escalated\n"
                           "with its reason codes. Keys an operator has claimed, or whose open escalation an\n"
                           "operator has claimed, are skipped (counted as skipped (claimed)). One run at a time\n"
                           "(a lease). --dry-run decides and prints, writes nothing (no lease, no run row, no\n"
                           "audit row; the upstream is still asked) and says which escalations a real run would\n"
                           "create or update. --biz-type T that no stale record has prints a warning naming the\n"
                           "records' biz_types (exit unchanged). Output: a table, or --format json (the run's\n"
                           "summary); --format csv is refused (exit 1).\n"
                           "Exit: 0 finished (escalations are a normal outcome), 1 usage or configuration\n"
                           "(including a database without the escalation tables: run init-schema), 2 store\n"
                           "failure, 3 another run holds the lease, 4 refused (read-only, newer schema)."),
            QList<QCommandLineOption>{
                option("biz-type", QStringLiteral("Only records of this biz_type."), QStringLiteral("T")),
                option("dry-run", QStringLiteral("Decide and print; write nothing.")),
                option("concurrency", QStringLiteral("Upstream requests in flight (1..6, default 6)."), QStringLiteral("N"),
                       QStringLiteral("6")),
                option("breaker-after", QStringLiteral("Stop querying after K consecutive unusable answers (default 10; 0 = never)."),
                       QStringLiteral("K"), QStringLiteral("10")),
            },
            0, QString(), true};
        return s;
    }

    bool dryRun(const QCommandLineParser &parser) const override { return parser.isSet(QStringLiteral("dry-run")); }

    int prepare(const CommandContext &c) override
    {
        if (c.out.format() == Format::Csv)
            return c.out.usage(QStringLiteral("reconcile prints table or json (--format csv is not supported)"));
        bool ok = false;
        m_options.concurrency = c.parser.value(QStringLiteral("concurrency")).trimmed().toInt(&ok);
        if (!ok || m_options.concurrency < 1 || m_options.concurrency > 6)
            return c.out.usage(QStringLiteral("--concurrency: a number from 1 to 6 (Qt opens at most 6 connections per host)"));
        m_options.breakerAfter = c.parser.value(QStringLiteral("breaker-after")).trimmed().toInt(&ok);
        if (!ok || m_options.breakerAfter < 0)
            return c.out.usage(QStringLiteral("--breaker-after: a number of answers, 0 for never"));
        m_options.bizType = c.parser.value(QStringLiteral("biz-type"));
        m_options.dryRun = c.parser.isSet(QStringLiteral("dry-run"));
        // The global --limit defaults to 100 for listings; a reconcile pass takes every stale
        // record unless --limit is given.
        m_options.limit = c.parser.isSet(QStringLiteral("limit")) ? c.limit : 0;
        return ExitOk;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        QMap<QString, UpstreamConfig> upstreams = workspace.config().upstreams;
        if (upstreams.isEmpty() && workspace.config().isDemo) {
            // The demo's upstream is the simulator, started on a free loopback port for this run.
            m_simulator = startDemoSimulator(c.out);
            if (!m_simulator)
                return ExitUpstream;
            upstreams = demoUpstreams(m_simulator->baseUrl());
            // The run decides with the simulator as the configured upstream.
            WorkspaceConfig cfg = workspace.config();
            cfg.upstreams = upstreams;
            Workspace demo(cfg);
            UpstreamClient client(upstreams);
            return report(demo, runReconcile(demo, client, m_options), c);
        }
        UpstreamClient client(upstreams);
        return report(workspace, runReconcile(workspace, client, m_options), c);
    }

private:
    /// A warning when --biz-type T matched no stale record: the records' biz_types (DESIGN.md §8).
    void warnUnknownBizType(Workspace &ws, const ReconcileSummary &s, const CommandContext &c)
    {
        if (m_options.bizType.isEmpty() || s.examined > 0 || s.skippedClaimed > 0)
            return;
        const WorkspaceConfig config = ws.config();
        const auto census = ws.worker(DbRole::Idempotency)
                                .run<BizTypeCensus>([config](DbSession &db) {
                                    return biztype_sql::census(db, config.records(db.dialect().kind()), {});
                                })
                                .result();
        QString known;
        if (census.ok())
            known = census->bizTypes.isEmpty() ? QStringLiteral("there are no records")
                                               : QStringLiteral("the records' biz_types: %1%2")
                                                     .arg(census->bizTypes.join(QStringLiteral(", ")),
                                                          census->complete ? QString() : QStringLiteral(", …"));
        else
            known = QStringLiteral("the records' biz_types could not be read: ") + census.error->message;
        c.out.message(QStringLiteral("warning: reconcile --biz-type \"%1\": no stale PROCESSING record has this biz_type (%2)")
                          .arg(m_options.bizType, known));
    }

    int report(Workspace &ws, const ReconcileResult &r, const CommandContext &c)
    {
        if (r.kind != ReconcileResult::Kind::Finished) {
            c.out.message(r.message);
            if (r.kind == ReconcileResult::Kind::LeaseHeld || r.summary.runId == 0)
                return reconcileExitCode(r);
        }
        const ReconcileSummary &s = r.summary;
        if (r.kind == ReconcileResult::Kind::Finished)
            warnUnknownBizType(ws, s, c);
        if (c.out.format() == Format::Json) {
            c.out.print(s.toJson(true) + '\n');
            return reconcileExitCode(r);
        }
        TextTable table({QStringLiteral("OUTCOME"), QStringLiteral("ACTION"), QStringLiteral("REASONS"), QStringLiteral("UPSTREAM"),
                         QStringLiteral("IDEM_KEY")});
        for (const ReconcileKeyResult &k : s.keys)
            table.addRow({k.outcome, reconcileActionName(k.action.kind), k.action.reasonList(), k.upstream, k.idemKey});
        c.out.print(table.render());
        QStringList reasons;
        for (auto it = s.byReason.cbegin(); it != s.byReason.cend(); ++it)
            reasons << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
        // The line counts what the table shows: keys whose row says escalated, then the
        // escalations (one key may raise several), then keys with another outcome that also
        // escalated (e.g. an applied SUCCESS beside its EXTERNAL; DESIGN.md §8 "Summary").
        const QString escalatedOutcome = s.dryRun ? QStringLiteral("dry_run:escalate") : QStringLiteral("escalated");
        int escalatedRows = 0;
        QMap<QString, QPair<int, QStringList>> beside; // outcome → keys, their reasons
        for (const ReconcileKeyResult &k : s.keys) {
            if (k.outcome == escalatedOutcome) {
                ++escalatedRows;
            } else if (!k.action.escalations.isEmpty() && k.outcome != QLatin1String("skipped_claimed")) {
                auto &b = beside[k.outcome.startsWith(QLatin1String("dry_run:")) ? k.outcome.mid(8) : k.outcome];
                ++b.first;
                for (const QString &reason : k.action.reasonList().split(QLatin1Char(',')))
                    if (!b.second.contains(reason.trimmed()))
                        b.second << reason.trimmed();
            }
        }
        QString escalatedText = s.dryRun ? QStringLiteral("%1 would escalate (%2 would be created, %3 updated)")
                                               .arg(countText(escalatedRows, QStringLiteral("key")),
                                                    countText(s.escalationsCreated, QStringLiteral("escalation")))
                                               .arg(s.escalationsUpdated)
                                         : QStringLiteral("%1 escalated (%2 new, %3 updated)")
                                               .arg(countText(escalatedRows, QStringLiteral("key")),
                                                    countText(s.escalationsCreated, QStringLiteral("escalation")))
                                               .arg(s.escalationsUpdated);
        for (auto it = beside.cbegin(); it != beside.cend(); ++it)
            escalatedText += QStringLiteral("; %1 %2 (%3)")
                                 .arg(countText(it.value().first, QStringLiteral("%1 key").arg(it.key()), QStringLiteral("%1 keys").arg(it.key())),
                                      s.dryRun ? QStringLiteral("would also escalate") : QStringLiteral("also escalated"),
                                      it.value().second.join(QStringLiteral(", ")));
        // A dry run does not predict the automatic resolutions (step 6): said, not printed as 0.
        c.out.print(QStringLiteral("%1run %2 %3: %4 examined, %5 SUCCESS, %6 FAILED, %7, %8, "
                                   "%9 conflicts, %10 skipped (claimed), %11 waiting for a second NOT_FOUND, %12 errors; upstream: %13 "
                                   "queried, %14 unusable%15%16\n")
                        .arg(s.dryRun ? QStringLiteral("dry ") : QString())
                        .arg(s.runId)
                        .arg(s.state)
                        .arg(s.examined)
                        .arg(s.appliedSuccess)
                        .arg(s.appliedFailed)
                        .arg(escalatedText)
                        .arg(s.dryRun ? QStringLiteral("resolutions not predicted") : QStringLiteral("%1 resolved").arg(s.resolved))
                        .arg(s.conflicts)
                        .arg(s.skippedClaimed)
                        .arg(s.waiting)
                        .arg(s.errors)
                        .arg(s.queried)
                        .arg(s.unusable)
                        .arg(s.breakerOpen ? QStringLiteral(", circuit breaker opened") : QString())
                        .arg(reasons.isEmpty() ? QString() : QStringLiteral("; reasons: ") + reasons.join(QStringLiteral(", ")))
                        .toUtf8());
        return reconcileExitCode(r);
    }

    ReconcileOptions m_options;
    std::unique_ptr<UpstreamSimulatorProcess> m_simulator;
};

} // namespace

std::unique_ptr<Command> makeReconcileCommand()
{
    return std::make_unique<ReconcileCommand>();
}

} // namespace triage::ctl
