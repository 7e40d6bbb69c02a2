#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace triage::ctl {

/// RFC 4180 CSV: fields containing a comma, a double quote, CR or LF (or leading/trailing
/// spaces) are quoted, quotes inside doubled; records end with CRLF. A null QString is an
/// empty field (SQL NULL); callers that must tell NULL from "" use JSON instead.
class CsvWriter {
public:
    /// One field, quoted when needed.
    static QString field(const QString &value);
    /// One record: the fields joined by commas, ending with CRLF, as UTF-8.
    static QByteArray record(const QStringList &fields);
};

} // namespace triage::ctl
