#pragma once

#include "Command.h"

#include "KeyDetail.h"
#include "Queue.h"
#include "TimeText.h"
#include "Window.h"

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {
class UpstreamSimulatorProcess;
}

namespace triage::ctl {

/// Rows per fetchQueuePage() round trip by default: large pages, few round trips.
constexpr int kDefaultPageSize = 1000;

/// An option with a value named `valueName` (or a flag when it is empty).
QCommandLineOption option(const char *name, const QString &description, const QString &valueName = QString(),
                          const QString &defaultValue = QString());

/// The queue filters of list, mark --queue and query --queue: --biz-type, --tenant,
/// --key, --created-from/-to, --updated-from/-to, --newest-first.
QList<QCommandLineOption> queueFilterOptions();

/// The hidden --page-size N (rows per round trip; tests page through small pages).
QCommandLineOption pageSizeOption();

/// Reads --page-size, a number from 1 to 100000 (kDefaultPageSize when not given), into
/// `*pageSize`; false after a usage message.
bool readPageSize(const CommandContext &context, int *pageSize);

/// ISO-8601 text as parseUtcMicros() reads it (no zone means UTC: the console works in UTC),
/// the same to the minute ("2026-12-01T02:10Z": its first second), or a bare date (midnight UTC).
std::optional<UtcMicros> parseTimeOption(const QString &text);
/// Reads time option --`name` with parseTimeOption() into `*time` (left alone when the option
/// is not given); false after a usage message naming the option and its value ("--from:
/// cannot read \"yesterday\" as a UTC time (expected e.g. 2026-12-01T02:10:00Z, …)").
bool readTimeOption(const CommandContext &context, const QString &name, std::optional<UtcMicros> *time);

/// The window filters of timeline and incident create (DESIGN.md §7): --biz-type, --tenant,
/// --key, --store, --kind, --status (the last three comma-separated).
QList<QCommandLineOption> windowFilterOptions();
/// --link LINK: a deep link (DESIGN.md §7 "Links"): show takes triage://key/…, timeline
/// triage://window?…, in place of the KEY or the window and filters.
QCommandLineOption linkOption();
/// True when any of windowFilterOptions() is given.
bool windowFiltersGiven(const CommandContext &context);
/// Reads --from and --to (`command` names the command in the message) and the window
/// filters into `*query`; false after a usage message ("--store \"x\": idempotency, intent,
/// ticket or console", "--kind \"x\": one of record.created, …"); also when --from is not
/// before --to or when --kind and --store together select no stream.
bool readWindowQuery(const CommandContext &context, const QString &command, WindowQuery *query);
/// Reads --lookback (seconds from 0 to 86400) into `query->lookbackS` when given; false after
/// a usage message ("--lookback: seconds from 0 to 86400").
bool readLookback(const CommandContext &context, WindowQuery *query);
/// An event kind named by --kind (one of allEventKinds()); nullopt after a usage message.
std::optional<EventKind> readEventKind(const CommandContext &context, const QString &name);

/// The queue `queue` with the filters of queueFilterOptions(); nullopt after a usage message.
std::optional<QueueRequest> readQueueRequest(const CommandContext &context, const QString &queue);

/// Checks the KEY argument of `command` when one is given: 1 to 255 characters, not only
/// blanks. False after a usage message ("mark: a KEY of 1 to 255 characters (an empty KEY
/// is not a queue: name one with --queue)"). An empty KEY — a script's empty variable —
/// never means "no KEY" (mark and query would otherwise act on a whole queue).
bool keyArgumentOk(const CommandContext &context, const QString &command, bool queueInstead);

/// Pages through `request` (keyset, `pageSize` rows per round trip) until `limit` rows
/// (0 = all) or the end, appending to `*rows`; the first store error, if any. `from` as
/// fetchQueuePage(): Primary for rows that feed a compare-and-set.
std::optional<DbError> fetchQueueRows(Workspace &workspace, const QueueRequest &request, int limit, int pageSize,
                                      QVector<QueueRow> *rows, ReadFrom from = ReadFrom::Routed);

/// "NULL" for a null string (the table format's spelling of SQL NULL).
QString orNull(const QString &s);
QString orNull(const NullableText &s);

/// Starts the demo's upstream simulator on a free loopback port, serving the demo
/// workspace; nullptr after a message (the caller exits with ExitUpstream).
std::unique_ptr<UpstreamSimulatorProcess> startDemoSimulator(Output &out);

} // namespace triage::ctl
