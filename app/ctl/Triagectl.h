#pragma once

#include "Mark.h"
#include "UpstreamConfig.h"
#include "UpstreamSimulatorProcess.h"
#include "Queue.h"
#include "Workspace.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstdio>
#include <memory>
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
};

/// Output formats of `--format`.
enum class Format { Table, Json, Csv };

/// The `triagectl` command line (DESIGN.md §5): parses the arguments, opens the workspace
/// and runs one command (`init-schema`, `seed-demo`, `list`, `show`), writing results to
/// `out` and messages to `err`. All SQL runs on the Workspace's workers; this class only
/// waits on their futures (the CLI has no GUI thread). Needs a QCoreApplication.
class Triagectl {
public:
    /// A command line writing to `out` (results) and `err` (messages, errors).
    explicit Triagectl(FILE *out = stdout, FILE *err = stderr);

    /// Runs the command in `arguments` (argv, program name first) and returns its exit code.
    int run(const QStringList &arguments);

    /// The `--help` text: usage, commands, options, exit codes and password variables.
    QString helpText() const;

private:
    struct Command;
    static const QVector<Command> &commands();
    static const Command *findCommand(const QString &name);

    int usage(const QString &message);
    int dbFailure(const DbError &error, const QString &hint = QString());
    void print(const QByteArray &bytes);
    void message(const QString &text);

    /// Runs `command` (already parsed and checked) on `workspace`; its exit code.
    int runCommand(const Command &command, Workspace &workspace, const QStringList &args,
                   const std::optional<QueueRequest> &request);
    /// Prints "warning: …" for every [biz.*] section without records and every biz_type of
    /// the records without a section (checkBizTypeSections()); a failed check is only logged.
    void warnAboutBizTypeSections(Workspace &workspace);

    int initSchema(Workspace &workspace);
    int seedDemo(Workspace &workspace);
    /// Pages through `request` (keyset, --page-size rows per round trip) until --limit rows
    /// or the end, appending to `*rows`; the first store error, if any. Used by list,
    /// mark --queue and query --queue.
    std::optional<DbError> fetchRows(Workspace &workspace, const QueueRequest &request, QVector<QueueRow> *rows);
    int list(Workspace &workspace, const QueueRequest &request);
    int show(Workspace &workspace, const QString &key);
    int mark(Workspace &workspace, const QString &key);
    int query(Workspace &workspace, const QString &key);
    /// The upstream settings to use: the configured ones, or for the demo the upstream
    /// simulator (started here); nullopt with `*exitCode` set when that fails.
    std::optional<QMap<QString, UpstreamConfig>> upstreamsFor(Workspace &workspace, int *exitCode);
    int audit(Workspace &workspace);
    int doctor(Workspace &workspace);
    // CompensationCommands.cpp (issue #5).
    /// `duplicates`: duplicate-key groups, inconsistencies and regenerated keys.
    int duplicates(Workspace &workspace);
    /// `compensate KEY --action A --target ID --reason R [--dry-run]` or `compensate --resume COMP_KEY`.
    int compensate(Workspace &workspace, const QString &key);
    /// `compensations [--status S] [--key KEY]`: the compensations with their attempt history.
    int compensations(Workspace &workspace);
    /// The compensation settings to use: the configured ones, or for the demo the upstream
    /// simulator's (started here); nullopt with `*exitCode` set when that fails.
    std::optional<CompensationConfigs> compensationsFor(Workspace &workspace, int *exitCode);
    /// Prints mark outcomes (one per row) and returns the exit code: single row → its
    /// code; several → the first non-zero in the order 2, 5, 4, 3 (DESIGN.md §5).
    int reportMarks(const QVector<Outcome<MarkResult>> &results);

    /// Parses the list filters; nullopt after reporting a usage error.
    std::optional<QueueRequest> queueRequest(const QString &queue);
    /// Prints a one-row result (init-schema, seed-demo) in the chosen format.
    void printSummary(const QStringList &keys, const QVariantList &values, const QString &sentence);
    void printShowTable(const KeyDetail &detail);

    FILE *m_out;
    FILE *m_err;
    QCommandLineParser m_parser;
    Format m_format = Format::Table;
    int m_limit = 100;
    int m_pageSize = 1000;
    int m_rows = 0;
    quint32 m_seed = 0;
    std::optional<QueueRequest> m_queue; ///< mark / query --queue
    int m_concurrency = 6;               ///< query --queue: requests in flight
    int m_pauseAfter = 10;               ///< query --queue: stop after K consecutive unusable answers
    std::unique_ptr<UpstreamSimulatorProcess> m_simulator; ///< the demo's upstream, while a command needs it
};

} // namespace triage::ctl
