#pragma once

#include "CompensationConfig.h"
#include "CompensationRow.h"
#include "DbSession.h"
#include "KeyDetail.h"
#include "MarkRules.h"

#include <QByteArray>
#include <QFuture>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <QThread>
#include <QVector>

#include <memory>
#include <optional>

namespace triage {

class Workspace;

/// Longest compensation key (the idempotency key columns are VARCHAR(64)).
constexpr int kMaxCompensationKeyLength = 64;

/// The deterministic compensation key (DESIGN.md §1): `comp:<action>:<ticket_id>:<source key>`.
/// A key shorter than 64 characters is used as is; a longer one (or one of exactly 64) becomes
/// its first 47 characters, ':' and the first 16 hex digits of the SHA-256 of the full text,
/// exactly 64 characters — so shortened and unshortened keys never meet, the same target
/// always gets the same key and distinct targets get distinct keys.
QString compensationKey(const QString &action, const QString &ticketId, const QString &sourceKey);

/// Compensation statuses (DESIGN.md §4 spelling).
enum class CompensationStatus { Intent, Succeeded, Failed, Unknown };
/// "INTENT", "SUCCEEDED", "FAILED", "UNKNOWN".
QString compensationStatusName(CompensationStatus s);
/// Parses a status name (case-insensitive); nullopt when unknown.
std::optional<CompensationStatus> compensationStatusFromName(const QString &name);

/// The HTTP request of one compensation, rendered once when the intent is written and
/// stored with it (`request` column, JSON); a resume re-sends exactly this.
struct CompensationHttpRequest {
    QByteArray method = "POST";
    QString url;
    QList<QPair<QByteArray, QByteArray>> headers; ///< includes X-Idempotency-Key
    QByteArray body;
    QString confirmUrl;      ///< GET returning the ticket; empty: no confirmation query
    int timeoutMs = 5000;
    bool honoursKey = true;  ///< the upstream de-duplicates by X-Idempotency-Key
    /// Name of the environment variable with a bearer token, added as Authorization when the
    /// call is sent; the token itself is never stored.
    QString tokenEnv;

    /// The stored JSON text.
    QByteArray toJson() const;
    /// Parses the stored JSON text; nullopt when it is not a request object.
    static std::optional<CompensationHttpRequest> fromJson(const QByteArray &json);
};

/// What the operator asks for: compensate `target` (a ticket id) of source key `sourceKey`
/// with `action`.
struct CompensationRequest {
    QString sourceKey;
    QString action;
    QString target;
    QString reason;        ///< required; at least kOverrideReasonMinLength characters with `override`
    QString operatorName;
    bool dryRun = false;
    /// Sets aside the uncertainty rules of compensationTargetRule() (key reuse, an
    /// inconsistent SUCCESS snapshot), audited; never the canonical-ticket rule.
    bool override = false;
};

/// What the compensation safety rules say about one target (DESIGN.md §6 "Canonical ticket").
struct CompensationTargetDecision {
    QString refusal;    ///< one line when refused; "" when allowed
    QString overridden; ///< the rules an override set aside ("" when none was needed)
    bool overridable = false; ///< refused only by rules an override (with a long enough reason) sets aside
};

/// The compensation safety rules for compensating ticket `target` of a key whose tickets are
/// `tickets` and whose record has `recordStatus` / `resultSnapshot`: the target must carry
/// the key, not be CANCELLED already, never be the canonical ticket (canonicalTicket(); no
/// override), and leave a live ticket; a group whose tickets' business payloads differ (key
/// reuse, keyReuseFields()) or whose SUCCESS snapshot names a CANCELLED or missing ticket is
/// refused unless `override` with a reason of at least kOverrideReasonMinLength characters.
/// Pure; used when a compensation is planned, started and resumed.
CompensationTargetDecision compensationTargetRule(const QVector<TicketRow> &tickets, const QString &recordStatus,
                                                  const std::optional<QString> &resultSnapshot, const QString &target,
                                                  bool override, const QString &reason);

/// The result of start() / resume().
struct CompensationOutcome {
    enum class Kind {
        Planned,   ///< dry run: nothing written or sent
        Succeeded, ///< the effect is confirmed (reply or confirmation query)
        Failed,    ///< an explicit 4xx refusal with no side effect
        Unknown,   ///< the outcome is not known: resume later (CLI exit 5)
        Existing,  ///< start(): a compensation with this key already exists (CLI exit 3)
        Refused,   ///< a safety rule or the configuration forbids it (CLI exit 4 / 1)
        Error,     ///< a database failed (CLI exit 2)
        NotFound,  ///< resume(): no compensation has this key (CLI exit 1)
    };
    Kind kind = Kind::Error;
    QString message;                 ///< one line for operators
    bool configError = false;        ///< Refused because of missing configuration (CLI exit 1)
    bool overridable = false;        ///< Refused only by rules that `override` sets aside (compensationTargetRule())
    QString compKey;
    CompensationHttpRequest request; ///< the rendered request (also for Planned)
    std::optional<CompensationRow> row;
    QVector<CompensationAttemptRow> history;
    std::optional<TicketRow> ticketAfter; ///< re-read from the ticket database after success
    std::optional<DbError> dbError;
};
/// "planned", "succeeded", "failed", "unknown", "existing", "refused", "error", "not_found".
QString compensationOutcomeName(CompensationOutcome::Kind k);

/// Filters for listing compensations.
struct CompensationQuery {
    std::optional<CompensationStatus> status;
    QString sourceKey;  ///< exact, or empty for all
    int limit = 100;    ///< 0 = no limit
};

namespace compensation_sql {
/// Reads compensations, oldest first. Throws DbException.
QVector<CompensationRow> read(DbSession &session, const CompensationQuery &query);
/// The compensation with `compKey`, if any. Throws DbException.
std::optional<CompensationRow> byKey(DbSession &session, const QString &compKey);
/// Every attempt of `compKey`, in order. Throws DbException.
QVector<CompensationAttemptRow> attempts(DbSession &session, const QString &compKey);
} // namespace compensation_sql

/// The demo's compensations: `cancel_ticket` for every demo biz_type against the upstream
/// simulator at `base` (POST /tickets/{ticket_id}/cancel, confirmed by GET /tickets/{ticket_id}).
CompensationConfigs demoCompensations(const QString &base);

namespace detail {
class CompensationHttp;
}

/// Runs compensations (DESIGN.md §1 "Compensation is a side effect too"): renders the
/// request once, writes the intent into triage_compensation (UNIQUE comp_key) before any
/// HTTP call, sends it with its deterministic X-Idempotency-Key, classifies the reply
/// (FAILED only for an explicit 4xx refusal before any possible side effect; anything
/// unclear is UNKNOWN), confirms UNKNOWN by the confirmation query, records every attempt,
/// re-reads the ticket after success and audits the outcome (triage_audit).
///
/// SQL runs on the Workspace's workers; HTTP on this object's own network thread; the
/// sequencing on the Workspace's merge pool. Every method is callable from any thread and
/// returns a future (GUI: `whenReady(future, this, …)`; CLI: `.result()`). The Workspace must outlive it.
class CompensationRunner {
public:
    /// Uses the workspace's configured compensations (WorkspaceConfig::compensations).
    explicit CompensationRunner(Workspace &workspace);
    /// Uses `configs` instead (the demo points its biz types at the upstream simulator).
    CompensationRunner(Workspace &workspace, CompensationConfigs configs);
    ~CompensationRunner();
    CompensationRunner(const CompensationRunner &) = delete;
    CompensationRunner &operator=(const CompensationRunner &) = delete;

    /// Plans (dry run) or starts a new compensation. A second start for the same key
    /// reports Existing with the stored row and sends nothing. compensationTargetRule()
    /// decides first (for a dry run too). Every outcome of a real start is audited (action
    /// `compensate`), refusals included; a request without a reason is refused unaudited.
    QFuture<CompensationOutcome> start(const CompensationRequest &request);
    /// Continues the compensation `compKey` with its stored request: nothing to do when it
    /// SUCCEEDED or FAILED; otherwise the canonical-ticket rule is checked again on the
    /// key's current tickets (an intent whose target is now, or always was, the canonical
    /// ticket is refused and sends nothing), then confirm first, then (if the effect is
    /// absent, or the upstream honours the key) re-send with the same key. Key reuse was
    /// decided when it started. Outcomes are audited (action `compensate_resume`); an
    /// unknown `compKey` is NotFound, unaudited.
    QFuture<CompensationOutcome> resume(const QString &compKey, const QString &operatorName);
    /// Lists compensations (intent-log database).
    QFuture<Outcome<QVector<CompensationRow>>> list(const CompensationQuery &query);
    /// The attempt history of `compKey`.
    QFuture<Outcome<QVector<CompensationAttemptRow>>> history(const QString &compKey);

private:
    CompensationOutcome runStart(const CompensationRequest &request);
    /// Existing: the stored row and request, with a `conflict` audit row.
    CompensationOutcome existingOutcome(CompensationOutcome out, const CompensationRow &row, const CompensationRequest &request);
    CompensationOutcome runResume(const QString &compKey, const QString &operatorName);
    /// Writes the audit row of a refused start or resume (idempotency database); returns
    /// the database's error when the row could not be written, "" when it was.
    QString auditRefusal(const CompensationOutcome &out, const QString &action, const QString &sourceKey, const QString &target,
                      const QString &operatorName, const QString &reason);
    /// Sends (or resumes) and records the outcome; `overridden` names the rules an
    /// override set aside (audit evidence).
    CompensationOutcome drive(CompensationRow row, const CompensationHttpRequest &req, bool resumed,
                              const QString &operatorName, const QString &overridden = {});

    Workspace &m_workspace;
    CompensationConfigs m_configs;
    QThread m_thread;
    detail::CompensationHttp *m_http = nullptr; ///< lives in m_thread
};

} // namespace triage
