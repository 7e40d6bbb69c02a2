#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QVariant>

namespace triage {

/// Collects bound values while a statement's text is assembled: bind() returns a fresh
/// placeholder (":p0", ":p1", …) for each value, so no value ever enters the SQL text and
/// no placeholder name is used twice (some Qt drivers mishandle repeated names).
class SqlBuilder {
public:
    /// Registers `value` and returns its placeholder.
    QString bind(const QVariant &value)
    {
        const QString name = QStringLiteral(":p%1").arg(m_values.size());
        m_values.append({name, value});
        return name;
    }
    const QList<QPair<QString, QVariant>> &values() const { return m_values; }

private:
    QList<QPair<QString, QVariant>> m_values;
};

} // namespace triage
