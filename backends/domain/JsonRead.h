#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace triage {

/// Strict reading of one JSON object of a file the console wrote (bundles, DESIGN.md §7):
/// each getter names the member it wants, and the first member that is missing or of the
/// wrong type is recorded once as `"<path>" is missing` / `"<path>" must be a string, not a
/// number` (path: "keys[2].record.id"); later getters then return defaults. Nothing throws.
class JsonIn {
public:
    /// Reads `object`, which sits at `path` ("" for the document's root).
    JsonIn(QJsonObject object, QString path, std::shared_ptr<QString> error = std::make_shared<QString>());

    /// The first error ("" while everything read was as expected).
    const QString &error() const { return *m_error; }
    bool ok() const { return m_error->isEmpty(); }
    /// Records `message` as the error unless one is recorded already.
    void fail(const QString &message) const;
    /// The path of member `name` ("keys[2].record" + "id").
    QString pathOf(const QString &name) const;
    const QJsonObject &object() const { return m_object; }
    bool has(const QString &name) const { return m_object.contains(name); }

    QString text(const QString &name) const;                         ///< a string
    std::optional<QString> nullableText(const QString &name) const;  ///< a string or null (nullopt)
    /// A string or null, as QString (null → a null QString): the console's "NULL as null QString" fields.
    QString textOrNull(const QString &name) const;
    qint64 integer(const QString &name) const;                       ///< a whole number
    std::optional<qint64> nullableInteger(const QString &name) const;
    double real(const QString &name) const;                          ///< a number
    std::optional<double> nullableReal(const QString &name) const;
    bool boolean(const QString &name) const;
    /// An array of strings; `optional`: a missing member reads as empty.
    QStringList strings(const QString &name, bool optional = false) const;
    /// An array (elements read with element()); `optional`: a missing member reads as empty.
    QJsonArray array(const QString &name, bool optional = false) const;
    /// A member object, read by the JsonIn returned (sharing this one's error).
    JsonIn child(const QString &name) const;
    /// The object element `index` of `array` (member `name`), as a JsonIn at "name[index]".
    JsonIn element(const QString &name, const QJsonArray &array, qsizetype index) const;
    /// A JsonIn at `path` sharing this one's error (for objects reached another way).
    JsonIn at(QJsonObject object, const QString &path) const { return JsonIn(std::move(object), path, m_error); }

private:
    /// The member, or an error when it is missing or not of `type` (Null accepted when `nullable`).
    std::optional<QJsonValue> member(const QString &name, QJsonValue::Type type, bool nullable) const;

    QJsonObject m_object;
    QString m_path;
    std::shared_ptr<QString> m_error;
};

/// "a string", "a number", "an object", … (for messages).
QString jsonTypeName(QJsonValue::Type type);

} // namespace triage
