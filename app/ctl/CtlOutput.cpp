#include "CtlOutput.h"

#include "CsvWriter.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

QString shownOfTotalText(qint64 shown, qint64 total, int limit, const QString &singular, const QString &plural, bool alwaysTotal)
{
    QString text = QStringLiteral("%1 %2").arg(shown).arg(shown == 1 ? singular : plural);
    if (alwaysTotal || shown < total)
        text += QStringLiteral(" (of %1)").arg(total);
    if (shown < total && limit > 0 && shown >= limit)
        text += QStringLiteral("; --limit 0 lists all");
    return text;
}

int combinedExitCode(const QSet<int> &codes)
{
    for (int c : {int(ExitDatabase), int(ExitUpstream), int(ExitRefused), int(ExitConflict), int(ExitProposed)})
        if (codes.contains(c))
            return c;
    return ExitOk;
}

int exitCodeFor(const DbError &error)
{
    switch (error.kind) {
    case DbError::Kind::Config: return ExitUsage;
    case DbError::Kind::Refused: return ExitRefused;
    case DbError::Kind::Conflict: return ExitConflict;
    default: return ExitDatabase;
    }
}

std::optional<Format> formatFromText(const QString &text)
{
    const QString f = text.trimmed().toLower();
    if (f == QLatin1String("table"))
        return Format::Table;
    if (f == QLatin1String("json"))
        return Format::Json;
    if (f == QLatin1String("csv"))
        return Format::Csv;
    return std::nullopt;
}

void Output::print(const QByteArray &bytes)
{
    fwrite(bytes.constData(), 1, size_t(bytes.size()), m_out);
}

void Output::message(const QString &text)
{
    QString lines;
    for (const QString &line : text.split(QLatin1Char('\n')))
        lines += QStringLiteral("triagectl: ") + line + QLatin1Char('\n');
    const QByteArray bytes = lines.toUtf8();
    fwrite(bytes.constData(), 1, size_t(bytes.size()), m_err);
    fflush(m_err);
}

int Output::usage(const QString &text)
{
    message(text);
    message(QStringLiteral("run \"triagectl --help\" for usage"));
    return ExitUsage;
}

int Output::dbFailure(const DbError &error, const QString &hint)
{
    message(error.message);
    if (!hint.isEmpty())
        message(QStringLiteral("hint: ") + hint);
    return exitCodeFor(error);
}

void Output::printSummary(const QStringList &keys, const QVariantList &values, const QString &sentence)
{
    switch (m_format) {
    case Format::Table:
        print((sentence + QLatin1Char('\n')).toUtf8());
        break;
    case Format::Json: {
        QJsonObject o;
        for (int i = 0; i < keys.size(); ++i)
            o.insert(keys[i], QJsonValue::fromVariant(values.value(i)));
        print(QJsonDocument(o).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        QStringList fields;
        for (const QVariant &v : values) // a list (notes) as one field, "; " between items
            fields << (v.typeId() == QMetaType::QStringList ? v.toStringList().join(QStringLiteral("; ")) : v.toString());
        print(CsvWriter::record(keys));
        print(CsvWriter::record(fields));
        break;
    }
    }
}

} // namespace triage::ctl
