#include "JsonText.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonParseError>

namespace triage {

ParsedJson parseJsonText(const QString &text)
{
    ParsedJson out;
    out.characters = text.size();
    if (text.trimmed().isEmpty()) {
        out.error = QStringLiteral("empty document");
        out.errorOffset = 0;
        out.errorLine = 1;
        out.errorColumn = 1;
        return out;
    }
    const QByteArray utf8 = text.toUtf8();
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(utf8, &err);
    if (err.error == QJsonParseError::NoError) {
        out.ok = true;
        out.root = doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
        return out;
    }
    // A bare scalar is valid JSON (RFC 8259) but not a QJsonDocument: parse it inside [ ].
    QJsonParseError wrappedErr;
    const QJsonDocument wrapped = QJsonDocument::fromJson("[" + utf8 + "]", &wrappedErr);
    if (wrappedErr.error == QJsonParseError::NoError && wrapped.array().size() == 1) {
        out.ok = true;
        out.root = wrapped.array().at(0);
        return out;
    }
    // err.offset counts UTF-8 bytes; report characters, lines and columns.
    const int byteOffset = qBound(0, int(err.offset), int(utf8.size()));
    const QString before = QString::fromUtf8(utf8.left(byteOffset));
    out.errorOffset = before.size();
    out.errorLine = int(before.count(QLatin1Char('\n'))) + 1;
    out.errorColumn = int(before.size() - (before.lastIndexOf(QLatin1Char('\n')) + 1)) + 1;
    out.error = QStringLiteral("%1 at line %2, column %3 (offset %4)")
                    .arg(err.errorString())
                    .arg(out.errorLine)
                    .arg(out.errorColumn)
                    .arg(out.errorOffset);
    return out;
}

ParsedJson parseJsonText(const std::optional<QString> &text)
{
    if (!text) {
        ParsedJson out;
        out.isNull = true;
        out.error = QStringLiteral("NULL");
        return out;
    }
    return parseJsonText(*text);
}

} // namespace triage
