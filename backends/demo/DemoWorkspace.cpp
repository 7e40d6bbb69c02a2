#include "DemoWorkspace.h"

#include "DemoHistory.h"
#include "Policy.h"
#include "DemoReview.h"
#include "Log.h"
#include "Reconcile.h"
#include "Schema.h"
#include "UpstreamClient.h"
#include "UpstreamSimulatorProcess.h"
#include "FutureChain.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSet>
#include <QStandardPaths>

#include <memory>

namespace triage {

namespace {

QFuture<Outcome<SeedReport>> failed(const DbError &e)
{
    return QtFuture::makeReadyFuture(Outcome<SeedReport>::failure(e));
}

} // namespace

QFuture<Outcome<SeedReport>> seedWorkspace(Workspace &ws, const SeedOptions &options)
{
    DbWorker *tickets = &ws.worker(DbRole::Ticket);
    DbWorker *records = &ws.worker(DbRole::Idempotency);
    DbWorker *intents = &ws.worker(DbRole::Intent);
    QThreadPool *pool = ws.mergePool();
    const bool oneWriter = ws.config().profile(DbRole::Ticket).sameDatabase(ws.config().profile(DbRole::Intent));
    const WorkspaceConfig config = ws.config();
    return continueWith(tickets->run<SeedTicketIds>([config](DbSession &s) { return seed_sql::nextTicketIds(s, config); }), pool, [=](const Outcome<SeedTicketIds> &first) {
                  if (!first.ok())
                      return failed(*first.error);
                  SeedOptions o = options;
                  o.firstTicketId = first->first;
                  o.textTicketIds = first->text;
                  const auto plan = std::make_shared<SeedPlan>(makeSeedPlan(o));
                  // A record table without a biz_type column holds one biz_type (DESIGN.md §10).
                  const auto fitted = std::make_shared<SeedReport>();
                  const RecordTableMap &rm = config.schema.records;
                  if (rm.bizType.isEmpty()) {
                      fitted->bizTypeValue = rm.bizTypeValue;
                      fitted->otherBizTypeRecords = keepBizType(*plan, rm.bizTypeValue);
                  }
                  return continueWith(records
                      ->run<qint64>(
                          [plan, fitted, config](DbSession &s) {
                              // The record with an unknown status: stored as a value the column
                              // holds and no status is mapped to, or left out (an enum of mapped labels).
                              QSet<QString> leftOut;
                              for (SeedRecord &r : plan->records) {
                                  if (r.status >= 0 && r.status <= 2)
                                      continue;
                                  const seed_sql::UnknownStatusFit fit = seed_sql::unknownStatusFit(s, config, r.status);
                                  fitted->unknownStatusRows++;
                                  fitted->unknownStatusStored = fit.stored;
                                  fitted->unknownStatusNote = fit.why;
                                  if (!fit.stored)
                                      leftOut.insert(r.idemKey);
                                  else if (config.schema.records.statuses.text)
                                      r.storedStatus = fit.stored;
                                  else
                                      r.status = fit.stored->toInt();
                              }
                              dropKeys(*plan, leftOut);
                              return seed_sql::insertRecords(s, config, plan->records, &fitted->recordsNow);
                          },
                          DbWorker::Retry::Never), pool, [=](const Outcome<qint64> &r) {
                                if (!r.ok())
                                    return failed(*r.error);
                                const auto refused = std::make_shared<QSet<qint64>>();
                                auto insertTickets = [=] {
                                    return tickets->run<qint64>(
                                        [plan, config, refused](DbSession &s) {
                                            return seed_sql::insertTickets(s, config, plan->tickets, refused.get());
                                        },
                                        DbWorker::Retry::Never);
                                };
                                auto insertIntents = [=] {
                                    return intents->run<qint64>(
                                        [plan, config](DbSession &s) { return seed_sql::insertIntents(s, config, plan->intents); },
                                        DbWorker::Retry::Never);
                                };
                                // The console's rows (audit beside the records, compensations beside the
                                // intent log) last, one after the other, without those about a refused ticket.
                                auto consoleRows = [=](SeedReport rep) {
                                    return continueWith(records
                                        ->run<qint64>(
                                            [plan, refused, now = rep.recordsNow > 0 ? std::optional<UtcMicros>(rep.recordsNow) : std::nullopt](DbSession &s) {
                                                return seed_sql::insertAudits(s, plan->audits, *refused, now);
                                            },
                                            DbWorker::Retry::Never), pool, [=](const Outcome<qint64> &a) {
                                                  if (!a.ok())
                                                      return failed(*a.error);
                                                  return continueWith(intents
                                                      ->run<qint64>(
                                                          [plan, refused](DbSession &s) {
                                                              return seed_sql::insertCompensations(s, plan->compensations, *refused);
                                                          },
                                                          DbWorker::Retry::Never), pool, [rep, audits = *a](const Outcome<qint64> &c) {
                                                          if (!c.ok())
                                                              return Outcome<SeedReport>::failure(*c.error);
                                                          SeedReport done = rep;
                                                          done.audits = audits;
                                                          done.compensations = *c;
                                                          return Outcome<SeedReport>::success(done);
                                                      });
                                              });
                                };
                                auto report = [=, recordCount = *r](const Outcome<qint64> &t, const Outcome<qint64> &i) {
                                    if (!t.ok())
                                        return failed(*t.error);
                                    if (!i.ok())
                                        return failed(*i.error);
                                    SeedReport rep = *fitted;
                                    rep.records = recordCount;
                                    rep.tickets = *t;
                                    rep.intents = *i;
                                    rep.backstopRefusedTickets = refused->size(); // the ticket insert has finished
                                    return consoleRows(rep);
                                };
                                if (oneWriter) {
                                    return continueWith(insertTickets(), pool, [=](const Outcome<qint64> &t) {
                                                  if (!t.ok())
                                                      return failed(*t.error);
                                                  return continueWith(insertIntents(), pool, [=](const Outcome<qint64> &i) { return report(t, i); });
                                              });
                                }
                                auto t = insertTickets();
                                auto i = insertIntents();
                                return continueAfterAll(futuresOf(t, i), pool, [=]() { return report(t.result(), i.result()); });
                            });
              });
}

QString DemoWorkspace::path()
{
    QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.local/share");
    return base + QStringLiteral("/triage-console/demo/demo.sqlite");
}

WorkspaceConfig DemoWorkspace::config()
{
    WorkspaceConfig c = WorkspaceConfig::sqliteWorkspace(path());
    c.bizTypes = demoBizTypes();
    c.isDemo = true;
    c.environment = Environment::Development; // DESIGN.md §5 "Environments"
    c.profileName = QStringLiteral("demo");
    c.upstreamsOnDemand = c.bizTypes.keys();
    // Payments and refunds move money: their reconcile policy defaults to escalate.
    c.moneyMovingWithoutFile = {QStringLiteral("payment_capture"), QStringLiteral("refund_issue")};
    return c;
}

QString DemoWorkspace::ensure(bool reset)
{
    const QString db = path();
    QDir().mkpath(QFileInfo(db).absolutePath());
    QLockFile lock(db + QStringLiteral(".lock"));
    lock.setStaleLockTime(120000);
    if (!lock.tryLock(60000))
        return QStringLiteral("another process is creating the demo workspace (%1.lock)").arg(db);
    const QString stamp = db + QStringLiteral(".created");
    QFile stampFile(stamp);
    QDateTime created;
    if (stampFile.open(QIODevice::ReadOnly))
        created = QDateTime::fromString(QString::fromUtf8(stampFile.readAll()).trimmed(), Qt::ISODate);
    stampFile.close();
    const bool fresh = QFile::exists(db) && created.isValid() && created.secsTo(QDateTime::currentDateTimeUtc()) < 86400;
    if (fresh && !reset)
        return {};
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
        QFile::remove(db + suffix);
    QFile::remove(stamp);
    logger("app")->info("creating the demo workspace at {}", db);
    QElapsedTimer clock;
    clock.start();
    qint64 lap = 0;
    auto took = [&] {
        const qint64 t = clock.elapsed(), d = t - lap;
        lap = t;
        return d;
    };
    Workspace ws(config());
    SchemaOptions schema;
    schema.ticketBackstop = false; // the demo reproduces a breached defence
    const auto s = initSchema(ws, schema).result();
    if (!s.ok())
        return s.error->message;
    const qint64 schemaMs = took();
    // The simulator starts while the demo set is written (its workers, not this thread).
    auto seeding = seedWorkspace(ws, SeedOptions{});
    UpstreamSimulatorProcess simulator;
    QString simError;
    const bool simulated = simulator.start(QStringLiteral("sqlite://") + db, &simError);
    const auto seeded = seeding.result();
    if (!seeded.ok())
        return seeded.error->message;
    const qint64 seedMs = took();
    // 14 days of reconciliation before today (DESIGN.md §8 "The demo's reconcile pass and history").
    const auto history = seedEscalationHistory(ws);
    if (!history.ok())
        return history.error->message;
    const qint64 historyMs = took();
    // Today's reconcile pass, against the simulator, as cron would run it.
    QString pass = QStringLiteral("not run");
    if (simulated) {
        WorkspaceConfig withUpstream = config();
        withUpstream.upstreams = demoUpstreams(simulator.baseUrl());
        Workspace passWs(withUpstream);
        UpstreamClient client(withUpstream.upstreams);
        const ReconcileResult r = runReconcile(passWs, client, ReconcileOptions{});
        if (r.kind != ReconcileResult::Kind::Finished)
            return QStringLiteral("the demo's reconcile pass did not finish: ") + r.message;
        pass = QStringLiteral("run %1: %2 examined, %3 escalated, %4 resolved")
                   .arg(r.summary.runId)
                   .arg(r.summary.examined)
                   .arg(r.summary.escalated)
                   .arg(r.summary.resolved);
    } else {
        logger("app")->warn("the demo's reconcile pass did not run ({}): the demo has its history but no run of today",
                            simError.toStdString());
    }
    simulator.stop();
    const qint64 passMs = took();
    // The daily review left behind by earlier mornings (DESIGN.md §8 "The daily review").
    const auto review = seedReviewHistory(ws);
    if (!review.ok())
        return review.error->message;
    // Money-moving marks need a second operator (DESIGN.md §9 "Four-eyes"): the demo's
    // policy, in its database like any deployment's, audited as set by "demo".
    const auto fourEyes = ws.worker(DbRole::Idempotency).run<bool>([](DbSession &session) {
        for (const QString &biz : {QStringLiteral("payment_capture"), QStringLiteral("refund_issue")})
            policy_sql::set(session, QStringLiteral("biz.%1.four_eyes").arg(biz), QStringLiteral("mark_success,mark_failed"),
                            QStringLiteral("the demo: payments and refunds move money, so a second operator approves every mark"),
                            QStringLiteral("demo"), std::nullopt);
        return true;
    }).result();
    if (!fourEyes.ok())
        return fourEyes.error->message;
    logger("app")->info("created the demo workspace in {} ms (schema {} ms, demo set {} ms, history {} ms: {} runs, {} escalations; "
                        "reconcile pass {} ms: {})",
                        clock.elapsed(), schemaMs, seedMs, historyMs, history->runs, history->escalations, passMs,
                        pass.toStdString());
    if (!stampFile.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return QStringLiteral("cannot write %1").arg(stamp);
    stampFile.write(QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toUtf8());
    return {};
}

std::optional<std::pair<UtcMicros, UtcMicros>> DemoWorkspace::incidentWindow()
{
    QFile stampFile(path() + QStringLiteral(".created"));
    if (!stampFile.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QDateTime created = QDateTime::fromString(QString::fromUtf8(stampFile.readAll()).trimmed(), Qt::ISODate);
    if (!created.isValid())
        return std::nullopt;
    // The stamp is written just after seeding (the seed's now() is at most a few seconds
    // earlier): whole minutes outward cover the outage.
    constexpr qint64 minute = 60LL * 1000000;
    const UtcMicros stamp = created.toMSecsSinceEpoch() * 1000;
    const UtcMicros from = (stamp - kDemoOutageStartAgo - 5 * minute) / minute * minute;
    // It ends 5 minutes before the seeding: the operators' actions are in, the demo's
    // in-flight calls of the last minutes (another story) are not.
    const UtcMicros to = (stamp - 5 * minute) / minute * minute;
    return std::pair{from, to};
}

QMap<QString, UpstreamConfig> demoUpstreams(const QUrl &base)
{
    QMap<QString, UpstreamConfig> out;
    const QMap<QString, BizTypeConfig> bizTypes = demoBizTypes();
    for (auto it = bizTypes.cbegin(); it != bizTypes.cend(); ++it) {
        UpstreamConfig u;
        u.bizType = it.key();
        u.baseUrl = base.toString();
        u.queryUrl = QStringLiteral("/tickets?idem_key={idem_key}");
        u.timeoutMs = 5000;
        u.sendIdempotencyKey = false;
        u.notFound = NotFoundSignal::EmptyResult;
        u.resultPath = QStringLiteral("tickets");
        out.insert(it.key(), u);
    }
    return out;
}

} // namespace triage
