#include "MarkRules.h"

#include "KeyDetailTypes.h"
#include "RecordStatus.h"
#include "SchemaMap.h"

#include <QStringList>
#include <QVariant>

namespace triage {

namespace {

QString answerRef(const RecordedUpstreamAnswer &u)
{
    return QStringLiteral("audit #%1, %2").arg(u.auditId).arg(u.atText.isEmpty() ? QStringLiteral("time unknown") : u.atText);
}

/// Why the recorded evidence does not prove absence for `failed_evidence = upstream`
/// (empty: it does), and the proof's words when it does.
QString missingProofOfAbsence(const MarkFacts &f, QString *proof)
{
    if (!f.upstream) {
        return f.upstreamConfigured
            ? QStringLiteral("no proof of absence: no upstream answer is recorded for the key (query the upstream first)")
            : QStringLiteral("no proof of absence: no upstream answer is recorded for the key and its biz_type has no upstream "
                             "query API configured (upstream_query_url)");
    }
    const RecordedUpstreamAnswer &u = *f.upstream;
    if (u.answer != UpstreamAnswer::NotFound)
        return QStringLiteral("no proof of absence: the latest recorded upstream answer (%1) is %2, not a definitive NOT_FOUND")
            .arg(answerRef(u), upstreamAnswerName(u.answer));
    if (!u.at || !f.now || !f.updatedAt)
        return QStringLiteral("no proof of absence: the time of the recorded NOT_FOUND (%1) cannot be compared with the "
                              "record's")
            .arg(answerRef(u));
    const UtcMicros staleAt = *f.updatedAt + qint64(f.processingTimeoutS) * 1000000;
    if (*u.at <= staleAt)
        return QStringLiteral("no proof of absence: the recorded NOT_FOUND (%1) was obtained before updated_at + "
                              "processing_timeout (%2), while the request could still have been running")
            .arg(answerRef(u), formatUtcMicros(staleAt));
    if (f.attemptTimeUnreadable)
        return QStringLiteral("no proof of absence: an intent attempt's time cannot be read, so the recorded NOT_FOUND (%1) "
                              "cannot be shown to come after it")
            .arg(answerRef(u));
    if (f.latestAttemptAt && *u.at <= *f.latestAttemptAt)
        return QStringLiteral("no proof of absence: the recorded NOT_FOUND (%1) was obtained before the key's latest intent "
                              "attempt (%2)")
            .arg(answerRef(u), formatUtcMicros(*f.latestAttemptAt));
    const double age = double(*f.now - *u.at) / 1e6;
    if (age > f.failedEvidenceMaxAgeS)
        return QStringLiteral("no proof of absence: the recorded NOT_FOUND (%1) is %2 old, older than failed_evidence_max_age "
                              "(%3 s): query the upstream again")
            .arg(answerRef(u), humanDuration(age))
            .arg(f.failedEvidenceMaxAgeS);
    *proof = QStringLiteral("upstream NOT_FOUND recorded %1 ago (%2)").arg(humanDuration(age), answerRef(u));
    return {};
}

} // namespace

std::optional<ExpectedStatusArg> expectedStatusFromText(const QString &text, const StatusMapping &mapping)
{
    if (text.isEmpty())
        return std::nullopt;
    if (const auto name = recordStatusFromText(text)) // a console status name wins
        return ExpectedStatusArg{qint64(*name), std::nullopt};
    if (text.trimmed().compare(QLatin1String("NULL"), Qt::CaseInsensitive) == 0)
        return ExpectedStatusArg{std::nullopt, std::nullopt};
    QString stored = text;
    if (stored.startsWith(QLatin1String("UNKNOWN_CODE_")))
        stored = stored.mid(13); // as the status text shows a value no spelling matches
    QVariant value(stored);
    if (!mapping.text) {
        bool ok = false;
        const qint64 n = stored.trimmed().toLongLong(&ok);
        if (!ok)
            return std::nullopt;
        value = QVariant(qlonglong(n)); // read as the integer column gives it back
    }
    const StoredRecordStatus s = StoredRecordStatus::fromMapped(value, mapping);
    return ExpectedStatusArg{s.code, s.stored};
}

ExpectedState expectedStateOf(const RecordDetail &record)
{
    ExpectedState e;
    e.status = record.statusCode;
    e.statusStored = record.statusStored;
    e.updatedAt = parseUtcMicros(record.updatedAt);
    if (record.hasVersionColumn)
        e.version = record.version;
    return e;
}

MarkDecision decideMark(const MarkFacts &facts, RecordStatusCode toStatus, const QString &reason, bool override,
                        bool snapshotIsJsonObject, const QString &snapshotError, bool bulk)
{
    MarkDecision d;
    auto refuse = [&](const QString &why) {
        d.allowed = false;
        d.reason = why;
        return d;
    };
    if (!facts.recordExists)
        return refuse(QStringLiteral("no idempotency record has this key"));
    const int reasonLength = int(reason.trimmed().size());
    if (reasonLength < kMarkReasonMinLength)
        return refuse(QStringLiteral("every manual mark needs a reason of at least %1 characters (got %2)")
                          .arg(kMarkReasonMinLength)
                          .arg(reasonLength));
    const QString from = !facts.fromStatusText.isEmpty() ? facts.fromStatusText
        : facts.fromStatus                               ? recordStatusText(QVariant(*facts.fromStatus))
                                                         : QStringLiteral("NULL");
    const QString to = recordStatusName(toStatus);
    if (facts.fromStatus == Success)
        return refuse(QStringLiteral("SUCCESS is final: its snapshot was returned to callers (DESIGN.md §2)"));
    const bool allowedPair = (facts.fromStatus == Processing && (toStatus == Success || toStatus == Failed))
        || (facts.fromStatus == Failed && toStatus == Success);
    if (!allowedPair)
        return refuse(QStringLiteral("%1 → %2 is not an allowed transition (allowed: PROCESSING→SUCCESS, "
                                     "PROCESSING→FAILED, FAILED→SUCCESS)")
                          .arg(from, to));
    if (toStatus == Success && facts.snapshotTicketId && !facts.snapshotTicketCarriesKey)
        return refuse(QStringLiteral("ticket #%1 does not carry this key: a SUCCESS snapshot comes only from a ticket of the key")
                          .arg(facts.snapshotTicketId->text()));
    if (toStatus == Success && !snapshotIsJsonObject)
        return refuse(QStringLiteral("SUCCESS needs a result snapshot that is a JSON object: %1").arg(snapshotError));
    QString proof;
    if (toStatus == Failed) {
        // Evidence that the side effect happened or may still happen: never overridable.
        QStringList happened;
        if (!facts.stale)
            happened << QStringLiteral("the record is younger than its processing timeout of %1 s (the request may still be "
                                       "running)")
                            .arg(facts.processingTimeoutS);
        if (facts.ticketCount > 0)
            happened << QStringLiteral("%1 ticket row(s) carry the key (the side effect happened)").arg(facts.ticketCount);
        if (facts.succeededAttempts > 0)
            happened << QStringLiteral("the intent log shows %1 SUCCEEDED attempt(s)").arg(facts.succeededAttempts);
        if (facts.upstream
            && (facts.upstream->answer == UpstreamAnswer::Found || facts.upstream->answer == UpstreamAnswer::Ambiguous))
            happened << QStringLiteral("the latest recorded upstream answer (%1) is %2 (the side effect happened)")
                            .arg(answerRef(*facts.upstream), upstreamAnswerName(facts.upstream->answer));
        if (!facts.storeErrors.isEmpty())
            happened << QStringLiteral("the evidence is incomplete (%1)").arg(facts.storeErrors.join(QStringLiteral("; ")));
        // Uncertainty: an override with a long reason may set it aside.
        QStringList uncertain;
        if (facts.escalatedAttempts > 0)
            uncertain << QStringLiteral("the intent log shows %1 ESCALATED attempt(s) (an open escalation)").arg(facts.escalatedAttempts);
        const bool upstreamFound = facts.upstream
            && (facts.upstream->answer == UpstreamAnswer::Found || facts.upstream->answer == UpstreamAnswer::Ambiguous);
        if (facts.failedEvidence == FailedEvidence::Upstream && !upstreamFound) {
            if (const QString missing = missingProofOfAbsence(facts, &proof); !missing.isEmpty())
                uncertain << missing;
        } else if (facts.failedEvidence == FailedEvidence::TicketAbsent) {
            proof = QStringLiteral("failed_evidence = ticket_absent: stale and no ticket carries the key");
        }
        const QString prefix = QStringLiteral("FAILED means \"confirmed no side effect\" (DESIGN.md §6), but ");
        if (!happened.isEmpty()) {
            return refuse(prefix + (happened + uncertain).join(QStringLiteral("; "))
                          + (override ? QStringLiteral("; --override sets aside only missing evidence or an open escalation, "
                                                       "never evidence that the side effect happened or a record that is not stale")
                                      : QString()));
        }
        if (!uncertain.isEmpty()) {
            if (bulk)
                return refuse(prefix + uncertain.join(QStringLiteral("; "))
                              + QStringLiteral("; a bulk FAILED applies only where the verdict is FAILED (override one key at a time)"));
            if (!override)
                return refuse(prefix + uncertain.join(QStringLiteral("; "))
                              + (facts.upstreamConfigured || facts.upstream
                                     ? QStringLiteral("; query the upstream for a fresh answer")
                                     : QStringLiteral("; declare failed_evidence = ticket_absent if this biz_type's side effect "
                                                      "is the ticket row"))
                              + QStringLiteral(", or use --override with a reason of at least %1 characters if you are sure")
                                    .arg(kOverrideReasonMinLength));
            if (reasonLength < kOverrideReasonMinLength)
                return refuse(QStringLiteral("--override needs a reason of at least %1 characters (got %2)")
                                  .arg(kOverrideReasonMinLength)
                                  .arg(reasonLength));
            d.overridden = uncertain.join(QStringLiteral("; "));
        }
    }
    d.allowed = true;
    d.reason = QStringLiteral("%1 → %2 allowed").arg(from, to);
    if (!proof.isEmpty() && d.overridden.isEmpty())
        d.reason += QStringLiteral(": ") + proof;
    return d;
}

} // namespace triage
