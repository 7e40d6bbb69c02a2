#pragma once

#include <QByteArray>
#include <QString>

namespace triage {

// Classification of a compensation upstream's replies (domain: pure, no network; the
// exchange itself is CompensationHttp).

/// What one HTTP exchange of a compensation gave.
struct CompensationHttpResult {
    bool gotResponse = false; ///< a status line arrived
    int status = 0;           ///< HTTP status when gotResponse
    QByteArray body;
    QByteArray contentType;
    QString error;            ///< network error text, "timeout", …; "" with a response
};

/// A call's reply (DESIGN.md §1 "Compensation is a side effect too").
enum class SendClass {
    Succeeded, ///< 2xx with the upstream's JSON
    Refused,   ///< an explicit 4xx business refusal with the upstream's JSON
    Unknown,   ///< no reply, timeout, reset, 5xx, HTML, unusable body, 401/403/407/408/409/425/429
};
/// A confirmation query's reply.
enum class ConfirmClass {
    Confirmed, ///< the ticket's status (`status` or `ticket.status`) is CANCELLED
    Absent,    ///< the upstream's ticket with another status
    Unusable,  ///< anything else (no confirmation URL included)
};

/// Classifies the reply to a compensation call.
SendClass classifySend(const CompensationHttpResult &r);
/// Classifies the reply to a confirmation query.
ConfirmClass classifyConfirm(const CompensationHttpResult &r);
/// "SUCCEEDED", "REFUSED", "UNKNOWN" (triage_compensation_attempt.classification).
QString sendClassName(SendClass c);
/// "CONFIRMED", "ABSENT", "UNUSABLE" (triage_compensation_attempt.classification).
QString confirmClassName(ConfirmClass c);
/// The stored preview of a reply body: its first 2000 bytes as UTF-8.
QString replyPreview(const QByteArray &body);

} // namespace triage
