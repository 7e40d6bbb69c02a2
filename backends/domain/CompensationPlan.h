#pragma once

#include "CompensationConfig.h"
#include "KeyDetailTypes.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

// Planning a compensation (domain rules: the request, the safety rules on the target; no
// SQL or network of their own).

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

/// Renders the request of compensating ticket `target` of key `sourceKey` (tenant `tenant`)
/// with action `cfg`, sent with X-Idempotency-Key `compKey`. nullopt with `*error` set to
/// "url: <why>" or "confirm_url: <why>" (the key's suffix after `compensation_<action>_`)
/// when a URL cannot be resolved.
std::optional<CompensationHttpRequest> renderCompensationRequest(const CompensationActionConfig &cfg, const QString &target,
                                                                 const QString &sourceKey, const QString &tenant,
                                                                 const QString &compKey, QString *error);

/// What the operator asks for: compensate `target` (a ticket id) of source key `sourceKey`
/// with `action`.
struct CompensationRequest {
    QString sourceKey;
    QString action;
    QString target;        ///< the ticket's id exactly as stored (BusinessId::text()); matched as that text
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

/// The refusal of resuming a compensation whose target `target` is now the canonical ticket
/// of its key (DESIGN.md §6: never a compensation target, whenever the intent was planned),
/// or "" when it is not. Pure.
QString canonicalTargetRefusal(const QVector<TicketRow> &tickets, const QString &recordStatus,
                               const std::optional<QString> &resultSnapshot, const QString &compKey,
                               const QString &target, const QString &sourceKey);

} // namespace triage
