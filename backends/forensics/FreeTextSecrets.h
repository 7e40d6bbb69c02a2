#pragma once
// The redaction's free-text rule (DESIGN.md §7 "Redaction"): in text that is not JSON (a note
// typed by an operator, an event's detail, raw header text, a JSON string that holds no JSON,
// a truncated body) a `NAME=value`, `NAME: value`, `NAME="value"` or `NAME='value'` whose NAME
// is one of the rules' names has its value redacted, as a JSON member of that name would.

#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QVector>

namespace triage {

/// Finds the values of `NAME=value` shapes in free text (DESIGN.md §7 "Redaction"). NAME is a
/// whole word (letters, digits, `_`, `-`; a dotted prefix such as `db.password` allowed),
/// optionally in matching quotes (`"password": "x"` in a truncated body), equal to one of the
/// names in any case; then `=` or `:` with spaces or tabs around. The value is `"…"` or `'…'`
/// (up to the closing quote on the same line, quotes kept), else up to whitespace, `,`, `;`,
/// `&` or the end (a quote just before that end is not part of it); for `Cookie` and
/// `Set-Cookie` (several `a=1; b=2` pairs, each a credential) up to the end of the line. After the scheme word
/// `Bearer` or `Basic` (any case) the value is the credential that follows: the scheme is kept.
/// A value that is empty or already a redaction marker ("[redacted sha256:") is not listed.
/// Built once per export (one compiled QRegularExpression); copies share it and may be used
/// from several threads at once.
class FreeTextSecrets {
public:
    /// One value to redact: the text's characters [start, start + length); `name` as written.
    struct Hit {
        qsizetype start = 0;
        qsizetype length = 0;
        QString name;
    };

    /// `names`: the rules' names (any case; the always-redacted headers included). With no
    /// name, find() finds nothing.
    explicit FreeTextSecrets(const QSet<QString> &names = {});

    /// The values to redact in `text`, in text order (never overlapping).
    QVector<Hit> find(const QString &text) const;

private:
    QRegularExpression m_pattern;
    bool m_any = false;
};

} // namespace triage
