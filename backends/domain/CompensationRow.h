#pragma once

#include <QString>

#include <optional>

namespace triage {

/// One row of triage_compensation (console-owned, intent-log database; DESIGN.md §1
/// "Compensation is a side effect too"). Times are canonical ISO UTC.
struct CompensationRow {
    qint64 id = 0;
    QString compKey, sourceKey, bizType, action, target;
    QString request;              ///< JSON (CompensationHttpRequest::toJson())
    QString status;               ///< INTENT, SUCCEEDED, FAILED, UNKNOWN
    int attempts = 0;             ///< calls sent (confirmation queries not counted)
    QString operatorName, reason;
    QString createdAt, updatedAt;
    std::optional<QString> lastError, response;
};

/// One row of triage_compensation_attempt: a call (kind "send") or a confirmation query
/// (kind "confirm"). classification: IN_FLIGHT (written before the call; stays so when the
/// process died during it), SUCCEEDED, REFUSED, UNKNOWN, CONFIRMED, ABSENT, UNUSABLE.
struct CompensationAttemptRow {
    qint64 id = 0;
    QString compKey, kind, at, classification;
    std::optional<int> httpStatus;
    std::optional<QString> responsePreview, error;
};

} // namespace triage
