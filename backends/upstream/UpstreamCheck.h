#pragma once

#include "Audit.h"
#include "KeyDetail.h"
#include "UpstreamClient.h"
#include "UpstreamEvidence.h"
#include "Verdict.h"

#include <QFuture>
#include <QMap>
#include <QUrl>

namespace triage {

class Workspace;
struct WorkspaceConfig;

/// Asking the upstream about one key (DESIGN.md §2 "Query upstream"): what the stores say,
/// the upstream's answer as evidence, the suggested verdict (§6) with its reason, and the
/// audit row that puts the query on the key's timeline.
struct UpstreamCheck {
    KeyDetail detail;           ///< the key as the three stores showed it before the query
    UpstreamEvidence evidence;  ///< request, response, timing, classification
    Verdict verdict;            ///< suggested verdict and reason (pure function of the above)
    qint64 auditId = 0;         ///< triage_audit row (action query_upstream, outcome recorded); 0 if not recorded
    QString recordNote;         ///< why it was not recorded (read-only mode, store error), else empty
    /// Non-empty when the check was rebuilt from the audit trail (latestRecordedCheck()):
    /// the row's time (canonical ISO UTC), not an answer obtained in this session.
    QString recordedAt;
    QString recordedBy;         ///< the operator of the recorded row (with recordedAt)
    /// Set when nothing was sent because the answer could not be recorded: the idempotency
    /// database has a newer (or unreadable) console schema version (DbError::Kind::Refused,
    /// DESIGN.md §10 "Schema version"). The evidence then says "not sent" (sent false,
    /// UNUSABLE / cancelled) with this message, recordNote says the same, auditId is 0. (A
    /// store that cannot be reached does not stop the query: its audit write says so.)
    std::optional<DbError> refusal;
    /// Who asked, for the audit row; empty: the workspace's operator (the reconciler passes
    /// "reconciler", DESIGN.md §8).
    QString operatorName;

    /// {idem_key, verdict: Verdict::toJson(), evidence: UpstreamEvidence::toJson(), audit_id}.
    QByteArray toJson() const;
};

/// Loads `idemKey` from the stores, queries its upstream through `client`, computes the
/// verdict and records the query in triage_audit (action "query_upstream", outcome
/// "recorded", evidence = the evidence and verdict JSON) unless the workspace is read-only.
/// The load, the query and the audit write are chained with continueWith() on the
/// workspace's merge pool (FutureChain.h); never throws; an unusable upstream is a
/// normal result. Unless read-only, requireKnownConsoleSchema() runs on the idempotency
/// database first: a console older than that database's schema asks the upstream nothing
/// (it could not record the answer) and returns the check with `refusal` set (DESIGN.md §10).
QFuture<UpstreamCheck> checkUpstream(Workspace &workspace, UpstreamClient &client, const QString &idemKey);

/// Records an already computed check in triage_audit (never retried: a lost reply must not
/// write the row twice). The future's check has its auditId set, or auditId 0 and
/// recordNote saying why (read-only mode, store error); it finishes on the merge pool.
QFuture<UpstreamCheck> recordUpstreamCheck(Workspace &workspace, UpstreamCheck check);

/// The triage_audit row that records `check` (action query_upstream, outcome recorded): who,
/// where, the record's state, a one-line reason, and the evidence and verdict JSON bounded
/// for the audit trail (each large text at most a quarter of kAuditRowMaxBytes).
AuditEntry upstreamAuditEntry(const WorkspaceConfig &config, const UpstreamCheck &check);

/// The latest upstream query recorded for the key of `detail` (the last triage_audit row of
/// `detail.audit` with action query_upstream), rebuilt from the row's evidence JSON as
/// upstreamAuditEntry() wrote it: evidence (classification, kind, message, request,
/// response, body, found objects, warnings) and verdict (kind, row, why, facts, reason,
/// snapshot), with auditId, recordedAt and recordedBy from the row. Texts the audit bound
/// cut (boundedJsonValue()) come back as their prefix, with a warning naming their full
/// length and SHA-256; a cut snapshot is dropped (nullopt) with a fact saying so. nullopt
/// when the key has no such row.
std::optional<UpstreamCheck> latestRecordedCheck(const KeyDetail &detail);

/// The outcome of checkUpstreamMany().
struct UpstreamBulkCheckReport {
    UpstreamBulkReport run;        ///< the queries: state, per-key evidence, counts
    /// One per input key, in input order. For a key that was answered: its evidence,
    /// verdict and auditId / recordNote; for a key never answered (not sent, cancelled): the
    /// detail and the run's "not sent" evidence only.
    QVector<UpstreamCheck> checks;
    QVector<bool> answered;        ///< per key: an answer arrived (not a cancel, not "never sent")
    /// The first audit write that failed; the run stopped at it (no request was sent after
    /// it, the ones in flight were cancelled). nullopt: every answer was recorded (or the
    /// workspace is read-only: then each check's recordNote says so).
    std::optional<DbError> auditError;

    /// The keys whose query is not in triage_audit because of `auditError`, in input order:
    /// answered but not written, then those never answered. Empty without an audit error.
    QStringList unrecordedKeys() const;
    /// Of unrecordedKeys(), those that were answered (their audit write failed or came after the failure).
    QStringList answeredUnrecordedKeys() const;
};

/// A bulk upstream check in progress (checkUpstreamMany()). Keep the shared_ptr while you
/// care about the run; dropping it cancels the queries.
class UpstreamBulkCheck : public QObject {
    Q_OBJECT
public:
    ~UpstreamBulkCheck() override;
    /// The queries: stop(), cancel(), resume(), and the resultReady / progress / paused signals.
    UpstreamBulkRun *run() const { return m_run.get(); }
    /// Resolves once the run has ended and every answer's audit write has come back.
    QFuture<UpstreamBulkCheckReport> report() const { return m_report; }

signals:
    /// Key `index` was answered and its audit write came back: `check.auditId` (0 when not
    /// recorded; `check.recordNote` says why). Emitted on the idempotency worker's thread.
    void checked(int index, const triage::UpstreamCheck &check);

private:
    friend std::shared_ptr<UpstreamBulkCheck> checkUpstreamMany(Workspace &, UpstreamClient &, QVector<KeyDetail>,
                                                                UpstreamBulkOptions, UpstreamBulkRun::PauseHook, const QString &);
    UpstreamBulkCheck() = default;
    std::shared_ptr<UpstreamBulkRun> m_run;
    QFuture<UpstreamBulkCheckReport> m_report;
};

/// Queries the upstream for every key of `details` (UpstreamClient::queryMany() with
/// `options` and `onPause`) and records each answer in triage_audit as it arrives (one row
/// per key, action query_upstream, never batched at the end). When an audit write fails the
/// run stops at once (DESIGN.md §2: nothing lost from the audit trail without a word): no
/// further request is sent, the ones in flight are cancelled, and the report names the
/// failure and the keys not recorded. In read-only mode nothing is written and nothing
/// stops (each check's recordNote says so). `options.keep` is set by this function.
/// `operatorName` names who asked on the audit rows ("" = the workspace's operator).
std::shared_ptr<UpstreamBulkCheck> checkUpstreamMany(Workspace &workspace, UpstreamClient &client, QVector<KeyDetail> details,
                                                     UpstreamBulkOptions options = {}, UpstreamBulkRun::PauseHook onPause = {},
                                                     const QString &operatorName = QString());


} // namespace triage
