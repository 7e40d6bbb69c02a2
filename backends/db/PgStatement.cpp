#include "PgStatement.h"

#include <QDate>
#include <QDateTime>
#include <QHash>
#include <QSqlDriver>
#include <QSqlField>
#include <QTime>
#include <QUuid>

namespace triage {

namespace {

bool isIdentChar(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

/// QSqlResultPrivate::isVariantNull() of Qt 6.4: what QPSQL sends as NULL.
bool isVariantNull(const QVariant &v)
{
    if (v.isNull())
        return true;
    switch (v.typeId()) {
    case QMetaType::QString:
        return v.value<QString>().isNull();
    case QMetaType::QByteArray:
        return v.value<QByteArray>().isNull();
    case QMetaType::QDateTime:
        return v.value<QDateTime>().isNull();
    case QMetaType::QDate:
        return v.value<QDate>().isNull();
    case QMetaType::QTime:
        return v.value<QTime>().isNull();
    case QMetaType::QUuid:
        return v.value<QUuid>().isNull();
    default:
        return false;
    }
}

/// The literal QPSQL's qCreateParamString() would send for `value`.
QString formatLiteral(const QVariant &value, const QSqlDriver *driver)
{
    QSqlField f;
    f.setMetaType(value.metaType());
    if (isVariantNull(value))
        f.clear();
    else
        f.setValue(value);
    return driver->formatValue(f);
}

} // namespace

std::optional<QString> inlineBoundValues(const QString &sql, const SqlBuilder &binds, const QSqlDriver *driver,
                                         QString *error)
{
    // Literals by index: SqlBuilder names its values ":p<index>"; another name (a builder of
    // another kind) is looked up by name.
    const QList<QPair<QString, QVariant>> &values = binds.values();
    QVector<QString> literals(values.size());
    for (qsizetype k = 0; k < values.size(); ++k)
        literals[k] = formatLiteral(values[k].second, driver);
    QHash<QString, qsizetype> byName; // built on first use
    auto literalOf = [&](QStringView name) -> const QString * {
        if (name.startsWith(QLatin1String(":p"))) {
            bool ok = false;
            const qsizetype k = name.mid(2).toLongLong(&ok);
            if (ok && k >= 0 && k < values.size() && values[k].first == name)
                return &literals[k];
        }
        if (byName.isEmpty())
            for (qsizetype k = 0; k < values.size(); ++k)
                byName.insert(values[k].first, k);
        const auto it = byName.constFind(name.toString());
        return it == byName.cend() ? nullptr : &literals[*it];
    };

    QString out;
    out.reserve(sql.size() + 16 * binds.values().size());
    const qsizetype n = sql.size();
    qsizetype i = 0;
    auto copyUntil = [&](qsizetype end) { // copies sql[i, end) and moves i there
        out += QStringView(sql).mid(i, end - i);
        i = end;
    };
    while (i < n) {
        const QChar c = sql.at(i);
        const QChar next = i + 1 < n ? sql.at(i + 1) : QChar();
        if (c == QLatin1Char('\'')) {
            // E'…' (and e'…') honours backslash escapes; a standard literal only doubles quotes.
            const bool escapes = i > 0 && (sql.at(i - 1) == QLatin1Char('E') || sql.at(i - 1) == QLatin1Char('e'))
                && (i < 2 || !isIdentChar(sql.at(i - 2)));
            qsizetype j = i + 1;
            while (j < n) {
                if (escapes && sql.at(j) == QLatin1Char('\\')) {
                    j += 2;
                    continue;
                }
                if (sql.at(j) == QLatin1Char('\''))
                    break;
                ++j;
            }
            copyUntil(qMin(j + 1, n));
        } else if (c == QLatin1Char('"')) {
            const qsizetype j = sql.indexOf(QLatin1Char('"'), i + 1);
            copyUntil(j < 0 ? n : j + 1);
        } else if (c == QLatin1Char('-') && next == QLatin1Char('-')) {
            const qsizetype j = sql.indexOf(QLatin1Char('\n'), i);
            copyUntil(j < 0 ? n : j + 1);
        } else if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
            const qsizetype j = sql.indexOf(QLatin1String("*/"), i + 2);
            copyUntil(j < 0 ? n : j + 2);
        } else if (c == QLatin1Char('$') && (i == 0 || !isIdentChar(sql.at(i - 1)))) {
            // $tag$ … $tag$ (tag empty or an identifier not starting with a digit); "$1" is not one.
            qsizetype j = i + 1;
            while (j < n && isIdentChar(sql.at(j)) && !(j == i + 1 && sql.at(j).isDigit()))
                ++j;
            if (j < n && sql.at(j) == QLatin1Char('$')) {
                const QString tag = sql.mid(i, j - i + 1);
                const qsizetype end = sql.indexOf(tag, j + 1);
                copyUntil(end < 0 ? n : end + tag.size());
            } else {
                copyUntil(i + 1);
            }
        } else if (c == QLatin1Char(':') && next == QLatin1Char(':')) {
            copyUntil(i + 2); // a cast
        } else if (c == QLatin1Char(':') && (next.isLetter() || next == QLatin1Char('_'))) {
            qsizetype j = i + 1;
            while (j < n && isIdentChar(sql.at(j)))
                ++j;
            const QStringView name = QStringView(sql).mid(i, j - i);
            const QString *literal = literalOf(name);
            if (!literal) {
                if (error)
                    *error = QStringLiteral("the statement uses %1, which has no bound value").arg(name);
                return std::nullopt;
            }
            out += *literal;
            i = j;
        } else {
            // Plain text up to the next character that may start a literal, identifier,
            // comment, dollar quote or placeholder: copied at once.
            qsizetype j = i + 1;
            while (j < n) {
                const char16_t u = sql.at(j).unicode();
                if (u == u'\'' || u == u'"' || u == u'-' || u == u'/' || u == u'$' || u == u':')
                    break;
                ++j;
            }
            copyUntil(j);
        }
    }
    return out;
}

QStringList pgStatementPreamble(qint64 statementTimeoutMs)
{
    QStringList out{QStringLiteral("SET LOCAL TIME ZONE 'UTC'")};
    if (statementTimeoutMs > 0)
        out << QStringLiteral("SET LOCAL statement_timeout = %1").arg(statementTimeoutMs);
    return out;
}

} // namespace triage
