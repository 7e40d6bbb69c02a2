#pragma once

#include "CtlOutput.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace triage {
class Workspace;
}

namespace triage::ctl {

/// What `triagectl --help` and `triagectl COMMAND --help` say about a command, and the
/// shape of its command line.
struct CommandSpec {
    QString name;        ///< "list"
    QString brief;       ///< the name with its arguments for the overview: "list QUEUE"
    QString summary;     ///< one line for the overview
    QString synopsis;    ///< usage after "triagectl"; alternative forms separated by "  |  "
    QString description; ///< the command's help text, lines of at most 100 characters
    QList<QCommandLineOption> options; ///< the options only this command (and its siblings) take
    /// Positional arguments after the name; -1: exactly one of a KEY or --`alternative`.
    int arguments = 0;
    QString alternative; ///< with arguments == -1: the option that stands for the KEY
    bool writes = false; ///< refused in read-only mode (unless dryRun())
    /// Each store's mapping is checked against its catalog before the command's first job
    /// there (installMappingCheck(), DESIGN.md §10 "Checked at open"). False only for the
    /// commands that fix a mapping or a schema: doctor, init-schema, map.
    bool checksMapping = true;
    /// `arguments` is the least number of positional arguments; prepare() checks the rest
    /// (incident: a subcommand, then an ID for most of them).
    bool variadic = false;
    /// True when the command reads --format itself (report: html or pdf), not as the
    /// global table / json / csv.
    bool ownsFormat = false;
    /// True when the command draws (fonts, charts): main() then makes a QApplication on the
    /// offscreen platform instead of a QCoreApplication (Triagectl::needsGui()).
    bool needsGui = false;
};

/// One parsed command line as a command sees it.
struct CommandContext {
    const QCommandLineParser &parser; ///< every option of every command, parsed
    Output &out;                      ///< results and messages
    QStringList args;                 ///< the positional arguments after the command name
    int limit = 100;                  ///< --limit (global; 0 = no limit)
};

/// One triagectl command: its options and help (spec()), its checks before any database
/// is opened (prepare()) and its handler (run()). All SQL runs on the Workspace's
/// workers; a command only waits on their futures (the CLI has no GUI thread). State a
/// command reads from its options lives in the command object, one object per run.
class Command {
public:
    virtual ~Command() = default;
    virtual const CommandSpec &spec() const = 0;
    /// Reads and checks the command's options and arguments before the workspace opens:
    /// ExitOk to go on, else the exit code after the message is written.
    virtual int prepare(const CommandContext &context) { Q_UNUSED(context); return ExitOk; }
    /// True when this invocation writes nothing (`--dry-run`): allowed in read-only mode.
    virtual bool dryRun(const QCommandLineParser &parser) const { Q_UNUSED(parser); return false; }
    /// Runs the command on `workspace`; its exit code (DESIGN.md §5).
    virtual int run(Workspace &workspace, const CommandContext &context) = 0;
    /// False when this invocation can run without a database (`bundle verify` with none
    /// configured): runOffline() is called instead of opening a workspace.
    virtual bool needsDatabase(const CommandContext &context) const { Q_UNUSED(context); return true; }
    /// Runs the command without a database (when needsDatabase() is false); its exit code.
    virtual int runOffline(const CommandContext &context) { Q_UNUSED(context); return ExitOk; }
};

/// Makes one command object.
using CommandFactory = std::unique_ptr<Command> (*)();

/// The dispatch table: every command's factory in the order `triagectl --help` lists them.
const std::vector<CommandFactory> &commandTable();

// One factory per command file (app/ctl/<Name>Command.cpp).
std::unique_ptr<Command> makeInitSchemaCommand();
std::unique_ptr<Command> makeSeedDemoCommand();
std::unique_ptr<Command> makeListCommand();
std::unique_ptr<Command> makeShowCommand();
std::unique_ptr<Command> makeMarkCommand();
std::unique_ptr<Command> makeQueryCommand();
std::unique_ptr<Command> makeDuplicatesCommand();
std::unique_ptr<Command> makeCompensateCommand();
std::unique_ptr<Command> makeCompensationsCommand();
std::unique_ptr<Command> makeAuditCommand();
std::unique_ptr<Command> makeDoctorCommand();
std::unique_ptr<Command> makeMapCommand();
std::unique_ptr<Command> makeTimelineCommand();
std::unique_ptr<Command> makeIncidentCommand();
std::unique_ptr<Command> makeBundleCommand();
std::unique_ptr<Command> makeReportCommand();
std::unique_ptr<Command> makeEscalationsCommand();
std::unique_ptr<Command> makeClaimCommand();
std::unique_ptr<Command> makeReleaseCommand();
std::unique_ptr<Command> makeClaimsCommand();
std::unique_ptr<Command> makeReconcileCommand();
std::unique_ptr<Command> makeReviewCommand();
std::unique_ptr<Command> makePolicyCommand();
std::unique_ptr<Command> makeProposalsCommand();
std::unique_ptr<Command> makeApproveCommand();
std::unique_ptr<Command> makeRejectCommand();
std::unique_ptr<Command> makeNotifyCommand();

} // namespace triage::ctl
