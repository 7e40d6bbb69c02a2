#pragma once

#include <QHashFunctions>
#include <QJsonValue>
#include <QMetaType>
#include <QString>
#include <QVariant>

#include <optional>

namespace triage {

/// The id of one business row (today: a ticket), as an opaque value. Business ids are
/// opaque values end to end, compensation keys included (DESIGN.md §4 "Business ids"):
/// the console never assumes a business table's primary key is a number. Real ticket
/// tables key by BIGINT, VARCHAR or UUID, so an id is kept as the exact text the database
/// returned ("42", "T-0042", "0b9e6c1e-3f0a-4a57-9d0e-2f6a1c3b7d11"), never parsed,
/// rounded or re-spelled, and compared as that text.
///
/// Shapes: an integer column's value is its decimal text ("42", "-7"); a text column's
/// value is its text unchanged (leading zeros, case and spaces kept); a UUID column's
/// value is PostgreSQL's canonical lower-case spelling. The empty id means "none".
///
/// Ordering (for a stable display only, never a business rule): numeric order when both
/// ids are canonical decimal integers (so 9 < 10, as ticket numbers sort today), else
/// plain text order (and an integer before a non-integer).
///
/// Binding one to SQL goes through businessIdBindValue() (db layer, BusinessIdSql.h);
/// printing one in JSON through toJson().
class BusinessId {
public:
    BusinessId() = default;
    /// The id whose text is exactly `text` (no trimming, no re-spelling).
    explicit BusinessId(QString text) : m_text(std::move(text)) {}
    /// The id of an integer column's value `n` (its decimal text).
    static BusinessId fromInteger(qint64 n) { return BusinessId(QString::number(n)); }
    /// The id read from a column value without changing it: an integer (any width, signed
    /// or not) as its decimal text, text as it is (bytes a driver flags as binary decoded
    /// as UTF-8), a UUID in its lower-case 8-4-4-4-12 spelling; SQL NULL (or an invalid
    /// QVariant) is the empty id.
    static BusinessId fromColumn(const QVariant &value);

    /// The exact text of the id.
    const QString &text() const { return m_text; }
    bool isEmpty() const { return m_text.isEmpty(); }

    /// The id as a number when its text is a canonical decimal integer within qint64
    /// ("0", "42", "-7"; not "042", "+42", " 42", "4.0"); nullopt otherwise.
    std::optional<qint64> toInteger() const;
    /// The same within quint64 (for unsigned BIGINT columns above qint64's range).
    std::optional<quint64> toUnsigned() const;

    /// The id in JSON output, the one spelling every output uses: a number when toInteger()
    /// gives one (every id the console printed as a JSON number before stays one), else a
    /// string with the exact text ("" for the empty id).
    QJsonValue toJson() const;

    friend bool operator==(const BusinessId &a, const BusinessId &b) { return a.m_text == b.m_text; }
    friend bool operator!=(const BusinessId &a, const BusinessId &b) { return a.m_text != b.m_text; }
    /// Display order (see the class comment).
    friend bool operator<(const BusinessId &a, const BusinessId &b);
    friend bool operator>(const BusinessId &a, const BusinessId &b) { return b < a; }
    friend bool operator<=(const BusinessId &a, const BusinessId &b) { return !(b < a); }
    friend bool operator>=(const BusinessId &a, const BusinessId &b) { return !(a < b); }
    friend size_t qHash(const BusinessId &id, size_t seed = 0) noexcept { return qHash(id.m_text, seed); }

private:
    QString m_text;
};

} // namespace triage

Q_DECLARE_METATYPE(triage::BusinessId)
