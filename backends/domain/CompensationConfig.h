#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>

class QSettings;

namespace triage {

/// One compensation action of one biz_type (DESIGN.md §2 "Compensate"), read from the
/// `compensation_<action>_*` keys of the INI section [biz.<biz_type>]. Templates use the
/// placeholders {ticket_id}, {idem_key} and {tenant}; URL templates are absolute or
/// relative to the section's `upstream_base_url`. Holds no secret.
struct CompensationActionConfig {
    QString bizType;
    QString action;                  ///< e.g. "cancel_ticket"
    QByteArray method = "POST";      ///< compensation_<action>_method
    QString baseUrl;                 ///< upstream_base_url of the section (may be empty)
    QString urlTemplate;             ///< compensation_<action>_url (required)
    QString bodyTemplate;            ///< compensation_<action>_body (may be empty)
    QString confirmUrlTemplate;      ///< compensation_<action>_confirm_url: GET returning the ticket
    int timeoutMs = 5000;            ///< compensation_<action>_timeout_ms (1..600000)
    bool honoursKey = true;          ///< compensation_<action>_honours_key (default true)
    /// upstream_token_env of the section: the NAME of the variable holding a bearer token,
    /// read when a call is sent (never stored, printed or logged).
    QString tokenEnv;
};

/// Compensation actions by biz_type, then by action name.
using CompensationConfigs = QMap<QString, QMap<QString, CompensationActionConfig>>;

/// Replaces {ticket_id}, {idem_key} and {tenant} in `tmpl`; with `percentEncode` every
/// value is percent-encoded (for URLs), else escaped for the inside of a JSON string
/// (for bodies: `"note":"dup of {idem_key}"`).
QString renderCompensationTemplate(const QString &tmpl, const QString &ticketId, const QString &idemKey,
                                   const QString &tenant, bool percentEncode);

/// Joins a rendered URL template to `baseUrl` when relative. Returns an empty string and
/// sets `*error` when the result is not a valid http(s) URL.
QString resolveCompensationUrl(const QString &baseUrl, const QString &rendered, QString *error);

/// Reads every `compensation_<action>_url` of every [biz.*] section of `settings` into
/// `out`. Returns false and sets `*error` (naming section and key) on an invalid value.
bool loadCompensationConfigs(const QSettings &settings, CompensationConfigs *out, QString *error);

} // namespace triage
