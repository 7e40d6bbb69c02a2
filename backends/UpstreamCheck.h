#pragma once

#include "KeyDetail.h"
#include "UpstreamClient.h"
#include "UpstreamEvidence.h"
#include "Verdict.h"

#include <QFuture>
#include <QMap>
#include <QUrl>

namespace triage {

class Workspace;

/// Asking the upstream about one key (DESIGN.md §2 "Query upstream"): what the stores say,
/// the upstream's answer as evidence, the suggested verdict (§6) with its reason, and the
/// audit row that puts the query on the key's timeline.
struct UpstreamCheck {
    KeyDetail detail;           ///< the key as the three stores showed it before the query
    UpstreamEvidence evidence;  ///< request, response, timing, classification
    Verdict verdict;            ///< suggested verdict and reason (pure function of the above)
    qint64 auditId = 0;         ///< triage_audit row (action query_upstream, outcome recorded); 0 if not recorded
    QString recordNote;         ///< why it was not recorded (read-only mode, store error), else empty

    /// {idem_key, verdict: Verdict::toJson(), evidence: UpstreamEvidence::toJson(), audit_id}.
    QByteArray toJson() const;
};

/// Loads `idemKey` from the stores, queries its upstream through `client`, computes the
/// verdict and records the query in triage_audit (action "query_upstream", outcome
/// "recorded", evidence = the evidence and verdict JSON) unless the workspace is read-only.
/// Runs on the workspace's pool; never throws; an unusable upstream is a normal result.
QFuture<UpstreamCheck> checkUpstream(Workspace &workspace, UpstreamClient &client, const QString &idemKey);

/// Records an already computed check (used by bulk runs). Returns the audit row id, or 0
/// and sets `*note` (read-only mode, store error).
qint64 recordUpstreamCheck(Workspace &workspace, const UpstreamCheck &check, QString *note);

/// The upstream settings for the demo workspace's biz types, pointing at the upstream
/// simulator at `base` (GET /tickets?idem_key=…, an empty list means NOT_FOUND).
QMap<QString, UpstreamConfig> demoUpstreams(const QUrl &base);

} // namespace triage
