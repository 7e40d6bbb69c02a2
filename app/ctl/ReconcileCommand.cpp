// triagectl reconcile: one unattended reconciliation pass for cron (DESIGN.md §8
// "Reconciliation"): settle what the evidence allows, escalate the rest with reasons.
#include "Command.h"
#include "CommandOptions.h"

#include "TextTable.h"

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
            QStringLiteral("For each stale PROCESSING record (oldest first; --limit N of them, default all): ask its\n"
                           "upstream (at most N requests in flight, Retry-After honoured, stop after K consecutive\n"
                           "unusable answers: the rest escalate as UPSTREAM_UNUSABLE), record every answer in\n"
                           "triage_audit, decide by DESIGN.md §8's table: SUCCESS applied by compare-and-set\n"
                           "(operator \"reconciler\"); FAILED only with the biz_type's reconcile = auto and two\n"
                           "NOT_FOUND answers at least reconcile_confirm_delay apart; everything else escalated\n"
                           "with its reason codes. Keys an operator has claimed are skipped. One run at a time\n"
                           "(a lease). --dry-run decides and prints, writes nothing (no lease, no run row, no\n"
                           "audit row; the upstream is still asked). --format json prints the run's summary.\n"
                           "Exit: 0 finished (escalations are a normal outcome), 1 usage or configuration,\n"
                           "2 store failure, 3 another run holds the lease, 4 refused (read-only, newer schema)."),
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
            return report(runReconcile(demo, client, m_options), c);
        }
        UpstreamClient client(upstreams);
        return report(runReconcile(workspace, client, m_options), c);
    }

private:
    int report(const ReconcileResult &r, const CommandContext &c)
    {
        if (r.kind != ReconcileResult::Kind::Finished) {
            c.out.message(r.message);
            if (r.kind == ReconcileResult::Kind::LeaseHeld || r.summary.runId == 0)
                return reconcileExitCode(r);
        }
        const ReconcileSummary &s = r.summary;
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
        c.out.print(QStringLiteral("%1run %2 %3: %4 examined, %5 SUCCESS, %6 FAILED, %7 escalated (%8 new, %9 updated), %10 resolved, "
                                   "%11 conflicts, %12 skipped (claimed), %13 waiting for a second NOT_FOUND, %14 errors; upstream: %15 "
                                   "queried, %16 unusable%17%18\n")
                        .arg(s.dryRun ? QStringLiteral("dry ") : QString())
                        .arg(s.runId)
                        .arg(s.state)
                        .arg(s.examined)
                        .arg(s.appliedSuccess)
                        .arg(s.appliedFailed)
                        .arg(s.escalated)
                        .arg(s.escalationsCreated)
                        .arg(s.escalationsUpdated)
                        .arg(s.resolved)
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
