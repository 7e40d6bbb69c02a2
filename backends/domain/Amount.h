#pragma once
// Amounts read from JSON objects — snapshots, business rows' payloads, intent requests,
// upstream objects — and compared as exact decimals, never through a double: the reconciler's
// amount check (DESIGN.md §6 "Reconciliation") and four-eyes' amount rule
// (four_eyes_amount_over, DESIGN.md §9 "Four-eyes").

#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// The `amount` and `currency` top-level members of a JSON object text, as written (a
/// string's value, or a number's literal, never through a double); nullopt / "" when absent,
/// null, or when the text is not a JSON object.
std::optional<QString> amountOf(const std::optional<QString> &jsonObject, QString *currency = nullptr);

/// A plain decimal's canonical text: sign, digits without leading zeros, fraction without
/// trailing zeros ("007.50" → "7.5", "-0" → "0"); empty when `text` is not one ("1e3", "abc").
QString canonicalDecimal(const QString &text);

/// True when two decimal texts are the same number ("1.10" = "1.1" = "01.1"); texts that are
/// not plain decimals compare as text.
bool sameAmount(const QString &a, const QString &b);

/// Compares the magnitudes of two canonical decimals (canonicalDecimal(); the sign is
/// ignored): negative, zero or positive as |a| is below, equal to or above |b|. Exact for any
/// number of digits.
int compareDecimalMagnitude(const QString &a, const QString &b);

/// One amount read for a key, and where it was read.
struct AmountSeen {
    QString source;   ///< "the snapshot", "the record's snapshot", "ticket 42", "attempt 7"
    QString amount;   ///< as written
    QString currency; ///< as written; "" when the object has none
};

/// Appends the amount of `jsonObject` (amountOf()) to `out` as read from `source`; nothing
/// when it carries none.
void collectAmount(QVector<AmountSeen> &out, const QString &source, const std::optional<QString> &jsonObject);

} // namespace triage
