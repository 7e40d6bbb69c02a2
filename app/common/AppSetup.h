#pragma once

#include "WorkspaceConfig.h"
#include "DemoWorkspace.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>

#include <optional>

namespace triage::app {

/// Starts logging (DESIGN.md §3, docs/CONVENTIONS.md "Logging"): spdlog's default logger gets a
/// rotating file sink under the app data location (<AppDataLocation>/logs/<name>.log,
/// 5 × 5 MB) and a stderr sink (warnings and up; debug with `verbose`). Qt's own
/// messages are routed into spdlog (logger "qt"). Per-layer loggers come from
/// triage::logger(). Call once, after QCoreApplication exists.
void setupLogging(const QString &appName, bool verbose);

/// The global options shared by triage-console and triagectl (DESIGN.md §5): --config,
/// --profile, --demo, --demo-reset, --idempotency-db, --intent-db, --ticket-db, --operator,
/// --read-only, --environment, --verbose.
QList<QCommandLineOption> workspaceOptions();

/// Registers workspaceOptions() on `parser`.
void addWorkspaceOptions(QCommandLineParser &parser);

/// Builds the workspace configuration from parsed options: --config file (or --profile
/// NAME's file, ProfileStore; an unknown name is unknownProfileError(), exit 1) first, then
/// the --*-db URLs override its connections; --demo (or nothing configured at all, when
/// `demoByDefault`) gives the embedded demo workspace (created or refreshed here; see
/// DemoWorkspace::ensure()). A configuration that names only some of the three
/// connections is an error. Returns nullopt with `*error` set (exit code 1) on a usage or
/// configuration problem, or with `*dbError` set (exit code 2) when the demo cannot be
/// created. --environment NAME overrides the file's environment (an unknown name is a
/// usage error); a workspace without a profile name is named after its ticket database.
std::optional<WorkspaceConfig> workspaceFromOptions(const QCommandLineParser &parser, bool demoByDefault,
                                                    QString *error, bool *dbError = nullptr);

/// What the last workspaceFromOptions() on this thread wants the operator told, one line each:
/// today "--environment development overrides the production environment of profile
/// "shop-prod": its writes are not guarded as production" (the option wins, never silently).
QStringList setupNotices();

} // namespace triage::app
