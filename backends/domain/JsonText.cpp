#include "JsonText.h"

#include "RawJson.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>

namespace triage {

namespace {

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isJsonStructural(char c)
{
    return c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"';
}

/// The byte just past the scalar starting at `i` (a string, or a literal / number).
qsizetype scalarEnd(const QByteArray &s, qsizetype i)
{
    const qsizetype n = s.size();
    if (i < n && s[i] == '"') {
        for (++i; i < n; ++i) {
            if (s[i] == '\\')
                ++i;
            else if (s[i] == '"')
                return i + 1;
        }
        return n;
    }
    while (i < n && !isJsonSpace(s[i]) && !isJsonStructural(s[i]))
        ++i;
    return i;
}

} // namespace

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
    qsizetype first = 0;
    while (first < utf8.size() && isJsonSpace(utf8[first]))
        ++first;
    QJsonParseError err;
    qsizetype errorAt = 0; // byte offset of the error in utf8
    if (first < utf8.size() && (utf8[first] == '{' || utf8[first] == '[')) {
        const QJsonDocument doc = QJsonDocument::fromJson(utf8, &err);
        if (err.error == QJsonParseError::NoError) {
            out.ok = true;
            out.root = doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
            return out;
        }
        errorAt = err.offset;
    } else {
        // A bare scalar is valid JSON (RFC 8259) but not a QJsonDocument: parse it inside
        // [ ], and report errors at their place in `text` (one byte less).
        const QJsonDocument wrapped = QJsonDocument::fromJson("[" + utf8 + "]", &err);
        if (err.error == QJsonParseError::NoError && wrapped.array().size() == 1) {
            out.ok = true;
            out.root = wrapped.array().at(0);
            return out;
        }
        if (err.error == QJsonParseError::NoError) {
            // Several comma-separated values: garbage after the first one.
            err.error = QJsonParseError::GarbageAtEnd;
            errorAt = scalarEnd(utf8, first);
            while (errorAt < utf8.size() && isJsonSpace(utf8[errorAt]))
                ++errorAt;
        } else {
            errorAt = err.offset - 1;
        }
    }
    errorAt = qBound(qsizetype(0), errorAt, utf8.size());
    if (err.error == QJsonParseError::IllegalValue) {
        // Qt reports an illegal value after the characters it consumed (and after any
        // whitespace it skipped): point at the value's first character instead.
        while (errorAt > 0 && isJsonSpace(utf8[errorAt - 1]))
            --errorAt;
        while (errorAt > 0 && !isJsonSpace(utf8[errorAt - 1]) && !isJsonStructural(utf8[errorAt - 1]))
            --errorAt;
    }
    // errorAt counts UTF-8 bytes; report QString positions, lines and columns.
    const QString before = QString::fromUtf8(utf8.left(errorAt));
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

QJsonValue boundedJsonValue(const QByteArray &bytes, qsizetype maxBytes)
{
    if (bytes.size() <= maxBytes)
        return QString::fromUtf8(bytes);
    QJsonObject o;
    o.insert(QStringLiteral("cut"), true);
    o.insert(QStringLiteral("bytes"), double(bytes.size()));
    o.insert(QStringLiteral("sha256"), QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
    o.insert(QStringLiteral("prefix"), QString());
    const qsizetype overhead = QJsonDocument(o).toJson(QJsonDocument::Compact).size();
    qsizetype take = std::max<qsizetype>(0, maxBytes - overhead);
    for (;;) {
        qsizetype n = std::min(take, bytes.size());
        while (n > 0 && n < bytes.size() && (uchar(bytes.at(n)) & 0xC0) == 0x80)
            --n; // never split a UTF-8 character
        o.insert(QStringLiteral("prefix"), QString::fromUtf8(bytes.left(n)));
        const qsizetype size = QJsonDocument(o).toJson(QJsonDocument::Compact).size();
        if (size <= maxBytes || n == 0)
            return o;
        take = n - (size - maxBytes); // escapes made it longer: shrink by the excess
    }
}

QString boundedText(const QString &text, qsizetype maxBytes)
{
    const QByteArray utf8 = text.toUtf8();
    if (utf8.size() <= maxBytes)
        return text;
    return QString::fromUtf8(QJsonDocument(boundedJsonValue(utf8, maxBytes).toObject()).toJson(QJsonDocument::Compact));
}

ParsedJson parseJsonTextForDisplay(const std::optional<QString> &text)
{
    ParsedJson parsed = parseJsonText(text);
    if (!parsed.ok || !(parsed.root.isObject() || parsed.root.isArray()))
        return parsed;
    const QByteArray utf8 = text->toUtf8();
    const QVector<rawjson::DuplicateKey> dups = rawjson::duplicateKeys(utf8);
    if (dups.isEmpty())
        return parsed;
    const QJsonDocument all = QJsonDocument::fromJson(rawjson::renameDuplicateKeys(utf8));
    if (all.isObject())
        parsed.root = all.object();
    else if (all.isArray())
        parsed.root = all.array();
    for (const rawjson::DuplicateKey &d : dups)
        parsed.duplicateKeys << QStringLiteral("%1: \"%2\" %3 times").arg(d.path, d.key).arg(d.count);
    return parsed;
}

void appendJsonString(QByteArray *out, QStringView s)
{
    // Most texts are plain ASCII with nothing to escape: copied straight into `out` in one pass
    // (no UTF-8 conversion, no temporary); the rest from the first other character on below.
    const qsizetype start = out->size();
    const qsizetype need = start + s.size() + 2;
    if (out->capacity() < need)
        out->reserve(std::max(need, 2 * out->capacity())); // amortised growth, as append() gives
    out->resize(need);
    char *const dst = out->data() + start;
    dst[0] = '"';
    const char16_t *begin = s.utf16(), *const end = begin + s.size();
    qsizetype n = 0;
    for (const char16_t *p = begin; p != end && *p >= 0x20 && *p < 0x80 && *p != u'"' && *p != u'\\'; ++p)
        dst[1 + n++] = char(*p);
    if (n == s.size()) {
        dst[1 + n] = '"';
        return;
    }
    out->resize(start + 1 + n);
    begin += n;
    // Valid UTF-16 with nothing to escape: QString's own UTF-8 conversion.
    const auto plain = [](char16_t c) { return c >= 0x20 && c != u'"' && c != u'\\' && (c < 0xd800 || c > 0xdfff); };
    if (std::all_of(begin, end, plain)) {
        *out += QStringView(begin, end).toUtf8();
        *out += '"';
        return;
    }
    static const char hex[] = "0123456789abcdef";
    for (const char16_t *p = begin; p != end; ++p) {
        const char16_t c = *p;
        if (c >= 0xd800 && c <= 0xdbff && p + 1 != end && p[1] >= 0xdc00 && p[1] <= 0xdfff) {
            *out += QStringView(p, 2).toUtf8(); // a surrogate pair: one 4-byte character
            ++p;
        } else if (c >= 0xd800 && c <= 0xdfff) {
            const char esc[] = {'\\', 'u', hex[c >> 12], hex[(c >> 8) & 0xf], hex[(c >> 4) & 0xf], hex[c & 0xf]};
            out->append(esc, sizeof esc); // a lone surrogate: QJsonDocument's \uxxxx
        } else if (c == u'"' || c == u'\\') {
            *out += '\\';
            *out += char(c);
        } else if (c < 0x20) {
            *out += '\\';
            switch (c) {
            case 0x8: *out += 'b'; break;
            case 0xc: *out += 'f'; break;
            case 0xa: *out += 'n'; break;
            case 0xd: *out += 'r'; break;
            case 0x9: *out += 't'; break;
            default: {
                const char esc[] = {'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
                out->append(esc, sizeof esc);
            }
            }
        } else {
            const char16_t *run = p; // a run of plain characters at once
            while (p + 1 != end && plain(p[1]))
                ++p;
            *out += QStringView(run, p + 1).toUtf8();
        }
    }
    *out += '"';
}

} // namespace triage
