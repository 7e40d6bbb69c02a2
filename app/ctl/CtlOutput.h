#pragma once

#include "DbError.h"

#include <QByteArray>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVariantList>

#include <cstdio>
#include <optional>

namespace triage::ctl {

/// Process exit codes (DESIGN.md §5).
enum ExitCode : int {
    ExitOk = 0,       ///< done
    ExitUsage = 1,    ///< usage or configuration error (also: `show` of a key found nowhere)
    ExitDatabase = 2, ///< connection or database error, including missing privileges
    ExitConflict = 3, ///< someone else's state wins (compare-and-set matched no row)
    ExitRefused = 4,  ///< refused by a safety rule, including read-only mode
    ExitUpstream = 5, ///< upstream unusable or timed out, or a compensation left UNKNOWN
    ExitProposed = 6, ///< four-eyes made the mark a proposal: nothing applied until another operator approves
};

/// The exit code of a database failure (DESIGN.md §5): 1 for a configuration error, 4 for a
/// write a safety rule refused (the console schema version, DESIGN.md §10), else 2.
int exitCodeFor(const DbError &error);

/// The exit code of a run of several outcomes (bulk mark): the first of 2, 5, 4, 3 that
/// `codes` holds, else 0 (DESIGN.md §5).
int combinedExitCode(const QSet<int> &codes);

/// The count line under a table cut by --limit: "100 rows (of 111); --limit 0 lists all".
/// `shown` rows of `total` with `limit` (0: none); " (of T)" always when `alwaysTotal` (list),
/// else only when rows were left out ("2 escalations"); the hint only when --limit cut them.
QString shownOfTotalText(qint64 shown, qint64 total, int limit, const QString &singular, const QString &plural,
                         bool alwaysTotal);

/// Output formats of `--format`.
enum class Format { Table, Json, Csv };

/// `--format` text (table, json, csv; case-insensitive, trimmed); nullopt otherwise.
std::optional<Format> formatFromText(const QString &text);

/// Where a triagectl command writes: results to `out` in the chosen format, messages
/// ("triagectl: …" lines) to `err`. Every command writes through one Output.
class Output {
public:
    Output(FILE *out, FILE *err) : m_out(out), m_err(err) {}

    Format format() const { return m_format; }
    void setFormat(Format format) { m_format = format; }

    /// Writes `bytes` to the result stream as they are.
    void print(const QByteArray &bytes);
    /// Writes `text` to the message stream, every line prefixed "triagectl: ".
    void message(const QString &text);
    /// Reports a usage error (`text` and the hint to run --help); returns ExitUsage.
    int usage(const QString &text);
    /// Reports `error` (and "hint: …" when given); returns exitCodeFor(error).
    int dbFailure(const DbError &error, const QString &hint = QString());
    /// A one-row result (init-schema, seed-demo): `sentence` in the table format, an
    /// object of `keys` → `values` in json, a header row and one row in csv.
    void printSummary(const QStringList &keys, const QVariantList &values, const QString &sentence);

private:
    FILE *m_out;
    FILE *m_err;
    Format m_format = Format::Table;
};

} // namespace triage::ctl
