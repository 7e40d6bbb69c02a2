// triagectl doctor: the mapping against the live catalog and the indexes the queues need
// (DESIGN.md §5, §10).
#include "Command.h"

#include "EscalationService.h"
#include "CommandOptions.h"

#include "Doctor.h"
#include "Policy.h"
#include "PushTriggers.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

class DoctorCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("doctor"), QStringLiteral("doctor"),
            QStringLiteral("Check the mapping and every index the queues and views need."),
            QStringLiteral("doctor"),
            QStringLiteral("Inspect the live databases: check the [*.map] mapping against the catalog (each mapped\n"
                           "table and column exists, with a type the console can read for its role: one line per\n"
                           "problem naming the config key); then for every index the queues and views need, say\n"
                           "whether it exists, which statement creates it if not (CREATE INDEX CONCURRENTLY on\n"
                           "PostgreSQL: the console never creates one on the agents' tables), and (PostgreSQL,\n"
                           "MySQL) the plan the queue's first-page query gets now. Reconciliation's freshness\n"
                           "(DESIGN.md §8): where runs are logged in triage_reconcile_run but none has finished within\n"
                           "[console] reconcile_expected_every seconds (default 3600, the database's clock), a\n"
                           "\"warning: no reconcile run has finished for …\" line (exit unchanged); a database where no\n"
                           "run was ever logged gets none. A store with a replica_url: its replica's lag measured now\n"
                           "(\"ok … read replica … — replica lag 0.2 s\", or a warning saying why reads go to the\n"
                           "primary; exit unchanged). A store whose table carries the push trigger (`notify install`):\n"
                           "a warning naming it and its cost (exit unchanged). Exit 0 when all is well, 1 when the\n"
                           "mapping does not match the databases, 4 when an index is missing."),
            {}, 0, QString(), false, false};
        return s;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        QVector<IndexFinding> all;
        QStringList problems;
        QStringList warnings;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
            const auto o = checkStore(workspace, role).result();
            if (!o.ok())
                return c.out.dbFailure(*o.error);
            problems += o->mappingProblems;
            warnings += o->mappingWarnings;
            all += o->indexes;
        }
        {
            // Reconciliation's freshness (DESIGN.md §8): where runs are logged, a warning when
            // none finished within reconcile_expected_every.
            const auto fresh = reconcileFreshness(workspace).result();
            if (!fresh.ok())
                return c.out.dbFailure(*fresh.error);
            if (*fresh)
                warnings << **fresh;
        }
        {
            // The global freeze (DESIGN.md §8 "Safety policy"): every write is refused meanwhile.
            const auto freeze = readFreeze(workspace).result();
            if (!freeze.ok())
                return c.out.dbFailure(*freeze.error);
            if (*freeze)
                warnings << freezeMessage(**freeze);
        }
        // Read replicas (DESIGN.md §9 "Read replicas"): each one's lag, measured now; one that
        // cannot serve reads is a warning (exit unchanged: reads then go to the primary).
        QVector<std::pair<DbRole, ReplicaStatus>> replicas;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
            if (workspace.reader(role).replicaWorker()) {
                const ReplicaStatus r = workspace.reader(role).measureNow().result();
                replicas.append({role, r});
                if (!r.usable())
                    warnings << QStringLiteral("%1 read replica %2: %3").arg(roleName(role), r.replicaUrl, r.text());
            }
        // Push (DESIGN.md §9 "Push"): the console's NOTIFY triggers, and what they cost.
        const auto push = readPushTriggers(workspace).result();
        if (!push.ok())
            return c.out.dbFailure(*push.error);
        for (const PushTriggerState &p : std::as_const(*push))
            if (p.installed)
                warnings << QStringLiteral("%1 push trigger %2 on %3: NOTIFY takes a global lock at commit, so the commits that "
                                           "fire it are serialised; on a busy table measure first (`triagectl notify uninstall` "
                                           "removes it)")
                                .arg(roleName(p.role), QString::fromLatin1(kPushTrigger), p.table);
        bool missing = false;
        for (const IndexFinding &f : all)
            missing = missing || !f.present;
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const IndexFinding &f : all) {
                QJsonObject o;
                o.insert(QStringLiteral("store"), roleName(f.need.role));
                o.insert(QStringLiteral("table"), f.need.table);
                o.insert(QStringLiteral("columns"), QJsonArray::fromStringList(f.need.shownColumns()));
                o.insert(QStringLiteral("used_by"), f.need.usedBy);
                o.insert(QStringLiteral("present"), f.present);
                o.insert(QStringLiteral("index"), f.present ? QJsonValue(f.satisfiedBy) : QJsonValue(QJsonValue::Null));
                o.insert(QStringLiteral("fix"), f.fix.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(f.fix));
                o.insert(QStringLiteral("plan"), f.plan.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(f.plan));
                a.append(o);
            }
            QJsonObject doc;
            doc.insert(QStringLiteral("ok"), !missing && problems.isEmpty());
            doc.insert(QStringLiteral("mapping_problems"), QJsonArray::fromStringList(problems));
            doc.insert(QStringLiteral("mapping_warnings"), QJsonArray::fromStringList(warnings));
            doc.insert(QStringLiteral("indexes"), a);
            QJsonArray r;
            for (const auto &[role, st] : std::as_const(replicas)) {
                QJsonObject o;
                o.insert(QStringLiteral("store"), roleName(role));
                o.insert(QStringLiteral("url"), st.replicaUrl);
                o.insert(QStringLiteral("serves_reads"), st.usable());
                o.insert(QStringLiteral("lag_ms"), st.lagMs >= 0 ? QJsonValue(st.lagMs) : QJsonValue(QJsonValue::Null));
                o.insert(QStringLiteral("max_lag_ms"), st.maxLagMs);
                o.insert(QStringLiteral("status"), st.text());
                r.append(o);
            }
            doc.insert(QStringLiteral("replicas"), r);
            doc.insert(QStringLiteral("push_triggers"), pushTriggerStatesJson(*push));
            c.out.print(QJsonDocument(doc).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv:
        case Format::Table: {
            QByteArray out;
            for (const QString &p : std::as_const(problems))
                out += (p + QLatin1Char('\n')).toUtf8();
            for (const QString &w : std::as_const(warnings))
                out += (QStringLiteral("warning: ") + w + QLatin1Char('\n')).toUtf8();
            for (const IndexFinding &f : all) {
                const QString where = QStringLiteral("%1(%2)").arg(f.need.table, f.need.shownColumns().join(QStringLiteral(", ")));
                if (f.present)
                    out += QStringLiteral("ok       %1 %2 — index %3\n").arg(roleName(f.need.role), where, f.satisfiedBy).toUtf8();
                else if (!f.need.unservable.isEmpty())
                    out += QStringLiteral("MISSING  %1 %2 — %3 would scan the whole table\n         no index can serve it: %4\n")
                               .arg(roleName(f.need.role), where, f.need.usedBy, f.need.unservable)
                               .toUtf8();
                else
                    out += QStringLiteral("MISSING  %1 %2 — %3 would scan the whole table\n         fix: %4\n")
                               .arg(roleName(f.need.role), where, f.need.usedBy, f.fix)
                               .toUtf8();
                if (!f.plan.isEmpty())
                    out += QStringLiteral("         plan now: %1\n").arg(f.plan).toUtf8();
            }
            for (const auto &[role, st] : std::as_const(replicas))
                if (st.usable())
                    out += QStringLiteral("ok       %1 read replica %2 — %3\n").arg(roleName(role), st.replicaUrl, st.text()).toUtf8();
            if (!problems.isEmpty())
                out += "the mapping does not match the databases: fix the [*.map] keys named above\n";
            else
                out += missing ? "some indexes are missing: a DBA runs the fix statements above (init-schema never indexes an existing agents' table)\n"
                               : "every index the queues need is present\n";
            c.out.print(out);
            break;
        }
        }
        if (!problems.isEmpty())
            return ExitUsage;
        return missing ? ExitRefused : ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeDoctorCommand()
{
    return std::make_unique<DoctorCommand>();
}

} // namespace triage::ctl
