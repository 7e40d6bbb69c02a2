#pragma once

#include <QString>
#include <QVariant>

#include <optional>

namespace triage {

/// The text of one column value as a driver returns it (db layer; the one conversion every
/// reader uses). SQL NULL is std::nullopt, never "" (NULL is not empty: DESIGN.md §4); a
/// field that has no NULL state of its own takes `.value_or(QString())` (a null QString).
/// MySQL/MariaDB may flag text columns as binary: bytes are decoded as UTF-8 whatever the
/// type tag says. Columns that may hold bytes that are not UTF-8 go through
/// decodeStoredText() (TextEscape.h) instead.
inline std::optional<QString> columnText(const QVariant &v)
{
    if (v.isNull())
        return std::nullopt;
    if (v.typeId() == QMetaType::QByteArray)
        return QString::fromUtf8(v.toByteArray());
    return v.toString();
}

} // namespace triage
