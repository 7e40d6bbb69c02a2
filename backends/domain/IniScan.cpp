#include "IniScan.h"

#include <QFile>
#include <QSettings>
#include <QStringDecoder>

namespace triage {

namespace {

/// The text for a message: at most 60 characters of `s`, quoted.
QString quoteForMessage(const QString &s)
{
    const QString t = s.size() > 60 ? s.left(57) + QStringLiteral("...") : s;
    return QLatin1Char('"') + t + QLatin1Char('"');
}

/// Why QSettings would misread the value `v` (as written after '='), or "" when it reads
/// it as written. QSettings toggles quoting at every '"' not escaped by '\', takes an
/// unquoted ';' for the start of a comment, and runs an open quote on into the next lines.
QString quoteProblem(const QString &key, const QString &v)
{
    bool inQuotes = false;
    bool closedLeadingQuote = false;
    const bool leadingQuote = v.startsWith(QLatin1Char('"'));
    for (qsizetype i = 0; i < v.size(); ++i) {
        const QChar c = v.at(i);
        if (c == QLatin1Char('\\')) {
            ++i;
            continue;
        }
        if (closedLeadingQuote) {
            if (c == QLatin1Char(';'))
                return {};
            if (!c.isSpace())
                return QStringLiteral("text after the closing quote of the value of \"%1\"").arg(key);
            continue;
        }
        if (c == QLatin1Char('"')) {
            inQuotes = !inQuotes;
            if (!inQuotes && leadingQuote)
                closedLeadingQuote = true;
        } else if (c == QLatin1Char(';') && !inQuotes) {
            return {};
        }
    }
    if (inQuotes)
        return QStringLiteral("the value of \"%1\" opens a quote that is never closed").arg(key);
    return {};
}

} // namespace

const IniEntry *IniScan::find(const QString &section, const QString &key) const
{
    for (const IniEntry &e : entries)
        if (e.section == section && e.key == key)
            return &e;
    return nullptr;
}

int IniScan::sectionLine(const QString &section) const
{
    for (const IniSection &s : sections)
        if (s.name == section)
            return s.line;
    return 0;
}

IniScan scanIniFile(const QString &path)
{
    IniScan scan;
    scan.path = path;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return scan;
    scan.readable = true;
    QByteArray bytes = f.readAll();
    auto problem = [&](int line, const QString &why) { scan.problems.append({line, why}); };
    if (bytes.startsWith("\xEF\xBB\xBF")) {
        problem(1, QStringLiteral("the file starts with a byte-order mark: save it as UTF-8 without one"));
        bytes.remove(0, 3);
    } else if (bytes.startsWith("\xFF\xFE") || bytes.startsWith("\xFE\xFF")) {
        problem(1, QStringLiteral("the file is UTF-16 text: save it as UTF-8"));
        return scan;
    }
    const QList<QByteArray> rawLines = bytes.split('\n');
    QStringList lines;
    lines.reserve(rawLines.size());
    for (qsizetype i = 0; i < rawLines.size(); ++i) {
        QByteArray raw = rawLines.at(i);
        if (raw.endsWith('\r'))
            raw.chop(1);
        QStringDecoder utf8(QStringDecoder::Utf8);
        QString text = utf8.decode(raw);
        if (utf8.hasError()) {
            problem(int(i + 1), QStringLiteral("the line is not UTF-8 text"));
            text.clear();
        }
        lines << text;
    }

    QString section;
    bool brokenHeader = false; // the keys under a header that is not INI belong to no known section
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const int lineNo = int(i + 1);
        const QString line = lines.at(i).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char(';')))
            continue;
        if (line.startsWith(QLatin1Char('#'))) {
            problem(lineNo, QStringLiteral("\"#\" does not start a comment in this INI format: use \";\""));
            continue;
        }
        if (line.startsWith(QLatin1Char('['))) {
            const qsizetype close = line.indexOf(QLatin1Char(']'));
            brokenHeader = true;
            if (close < 0) {
                problem(lineNo, QStringLiteral("%1 has no closing \"]\"").arg(quoteForMessage(line)));
                continue;
            }
            const QString name = line.mid(1, close - 1);
            const QString rest = line.mid(close + 1).trimmed();
            if (!rest.isEmpty() && !rest.startsWith(QLatin1Char(';'))) {
                problem(lineNo, QStringLiteral("text after \"[%1]\": %2").arg(name, quoteForMessage(rest)));
                continue;
            }
            if (name.isEmpty()) {
                problem(lineNo, QStringLiteral("\"[]\" names no section"));
                continue;
            }
            brokenHeader = false;
            section = name;
            scan.sections.append({name, lineNo});
            continue;
        }
        const QString &physical = lines.at(i);
        const qsizetype eq = physical.indexOf(QLatin1Char('='));
        if (eq < 0) {
            problem(lineNo, QStringLiteral("expected [section], key=value or a ; comment, found %1").arg(quoteForMessage(line)));
            continue;
        }
        IniEntry e;
        e.section = section;
        e.key = physical.left(eq).trimmed();
        e.line = lineNo;
        QString value = physical.mid(eq + 1);
        // QSettings joins a line that ends in '\' with the next one.
        while (value.endsWith(QLatin1Char('\\')) && i + 1 < lines.size()) {
            value.chop(1);
            value += lines.at(++i);
        }
        e.rawValue = value.trimmed();
        e.quoted = e.rawValue.startsWith(QLatin1Char('"'));
        if (e.key.isEmpty()) {
            problem(lineNo, QStringLiteral("no key before \"=\" in %1").arg(quoteForMessage(line)));
            continue;
        }
        const QString why = quoteProblem(e.key, e.rawValue);
        if (!why.isEmpty())
            problem(lineNo, why);
        if (!brokenHeader)
            scan.entries.append(e);
    }
    return scan;
}

std::optional<QString> rawUnquotedIniValue(const QSettings &s, const QString &group, const QString &key)
{
    if (s.format() != QSettings::IniFormat || s.fileName().isEmpty())
        return std::nullopt;
    const IniScan scan = scanIniFile(s.fileName());
    const IniEntry *e = scan.find(group, key);
    if (!e || e->quoted)
        return std::nullopt;
    return e->rawValue;
}

} // namespace triage
