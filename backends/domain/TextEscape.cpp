#include "TextEscape.h"

namespace triage {

QString countText(qint64 n, const QString &singular, const QString &plural)
{
    const QString &noun = n == 1 ? singular : (plural.isEmpty() ? singular + QLatin1Char('s') : plural);
    return QString::number(n) + QLatin1Char(' ') + noun;
}

namespace {

/// Length of the well-formed UTF-8 sequence starting at `p` (1–4), or 0 when the byte at
/// `p` does not start one (RFC 3629 table 3-7).
int sequenceLength(const unsigned char *s, qsizetype n, qsizetype p)
{
    const unsigned char c = s[p];
    if (c < 0x80)
        return 1;
    auto cont = [&](qsizetype i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
        return i < n && s[i] >= lo && s[i] <= hi;
    };
    if (c >= 0xC2 && c <= 0xDF)
        return cont(p + 1) ? 2 : 0;
    if (c == 0xE0)
        return cont(p + 1, 0xA0) && cont(p + 2) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
        return cont(p + 1) && cont(p + 2) ? 3 : 0;
    if (c == 0xED) // U+D000–U+D7FF only: no surrogates
        return cont(p + 1, 0x80, 0x9F) && cont(p + 2) ? 3 : 0;
    if (c == 0xF0)
        return cont(p + 1, 0x90) && cont(p + 2) && cont(p + 3) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3)
        return cont(p + 1) && cont(p + 2) && cont(p + 3) ? 4 : 0;
    if (c == 0xF4)
        return cont(p + 1, 0x80, 0x8F) && cont(p + 2) && cont(p + 3) ? 4 : 0;
    return 0;
}

int hexValue(QChar c)
{
    const char16_t u = c.unicode();
    if (u >= u'0' && u <= u'9')
        return u - u'0';
    if (u >= u'A' && u <= u'F')
        return u - u'A' + 10;
    if (u >= u'a' && u <= u'f')
        return u - u'a' + 10;
    return -1;
}

} // namespace

bool isValidUtf8(const QByteArray &bytes)
{
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qsizetype n = bytes.size();
    for (qsizetype p = 0; p < n;) {
        const int len = sequenceLength(s, n, p);
        if (len == 0)
            return false;
        p += len;
    }
    return true;
}

QString escapeInvalidUtf8(const QByteArray &bytes)
{
    static const char hex[] = "0123456789ABCDEF";
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qsizetype n = bytes.size();
    QString out;
    out.reserve(n);
    qsizetype runStart = 0; // start of the current run of well-formed bytes
    auto flush = [&](qsizetype end) {
        if (end > runStart)
            out += QString::fromUtf8(bytes.constData() + runStart, end - runStart);
    };
    for (qsizetype p = 0; p < n;) {
        const int len = sequenceLength(s, n, p);
        if (len == 1 && s[p] == '\\') {
            flush(p);
            out += QStringLiteral("\\\\");
            runStart = ++p;
        } else if (len == 0) {
            flush(p);
            out += QLatin1String("\\x");
            out += QLatin1Char(hex[s[p] >> 4]);
            out += QLatin1Char(hex[s[p] & 0xF]);
            runStart = ++p;
        } else {
            p += len;
        }
    }
    flush(n);
    return out;
}

std::optional<QByteArray> unescapeInvalidUtf8(const QString &escaped)
{
    QByteArray out;
    out.reserve(escaped.size());
    qsizetype runStart = 0;
    auto flush = [&](qsizetype end) {
        if (end > runStart)
            out += QStringView(escaped).mid(runStart, end - runStart).toUtf8();
    };
    for (qsizetype i = 0; i < escaped.size(); ++i) {
        if (escaped.at(i) != u'\\')
            continue;
        flush(i);
        if (i + 1 < escaped.size() && escaped.at(i + 1) == u'\\') {
            out += '\\';
            ++i;
        } else if (i + 3 < escaped.size() && escaped.at(i + 1) == u'x' && hexValue(escaped.at(i + 2)) >= 0
                   && hexValue(escaped.at(i + 3)) >= 0) {
            out += char(hexValue(escaped.at(i + 2)) * 16 + hexValue(escaped.at(i + 3)));
            i += 3;
        } else {
            return std::nullopt;
        }
        runStart = i + 1;
    }
    flush(escaped.size());
    return out;
}

StoredText decodeStoredText(const QVariant &value)
{
    StoredText t;
    if (value.isNull())
        return t;
    if (value.typeId() != QMetaType::QByteArray) {
        t.text = value.toString();
        return t;
    }
    const QByteArray bytes = value.toByteArray();
    if (bytes.isEmpty()) {
        // A stored empty string: QSQLITE hands a zero-length blob over as a *null* QByteArray,
        // which QString::fromUtf8() would turn into a null QString, i.e. SQL NULL.
        t.text = QStringLiteral("");
    } else if (isValidUtf8(bytes)) {
        t.text = QString::fromUtf8(bytes);
    } else {
        t.text = escapeInvalidUtf8(bytes);
        t.escaped = true;
    }
    return t;
}

QString escapeControlChars(const QString &text)
{
    auto isControl = [](char16_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029; };
    qsizetype i = 0;
    while (i < text.size() && !isControl(text.at(i).unicode()))
        ++i;
    if (i == text.size())
        return text; // the common case: nothing to escape, no copy
    QString out = text.left(i);
    for (; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (!isControl(c)) {
            out += QChar(c);
            continue;
        }
        switch (c) {
        case u'\n': out += QLatin1String("\\n"); break;
        case u'\r': out += QLatin1String("\\r"); break;
        case u'\t': out += QLatin1String("\\t"); break;
        case 0: out += QLatin1String("\\0"); break;
        default:
            out += QLatin1String("\\u{");
            out += QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0'));
            out += QLatin1Char('}');
        }
    }
    return out;
}

} // namespace triage
