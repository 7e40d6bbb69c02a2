#pragma once

#include "Command.h"
#include "CtlOutput.h"

#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdio>
#include <memory>
#include <vector>

namespace triage::ctl {

/// The `triagectl` command line (DESIGN.md §5): parses the arguments, finds the command in
/// the dispatch table (commandTable()), checks the global options, opens the workspace
/// and runs the command, writing results to `out` and messages to `err`. Global options:
/// the workspace ones (app::addWorkspaceOptions()), --format, --limit, --help, --version.
/// Needs a QCoreApplication.
class Triagectl {
public:
    /// A command line writing to `out` (results) and `err` (messages, errors).
    explicit Triagectl(FILE *out = stdout, FILE *err = stderr);
    ~Triagectl();

    /// True when `arguments` (argv, program name first) name a command that draws
    /// (CommandSpec::needsGui: report): main() then creates a QApplication on the offscreen
    /// platform, and a QCoreApplication for every other command (no GUI libraries' start-up
    /// cost, no display needed). Needs no application object.
    bool needsGui(const QStringList &arguments);

    /// Runs the command in `arguments` (argv, program name first) and returns its exit code.
    int run(const QStringList &arguments);

    /// `triagectl --help`: usage, the commands with a one-line summary, the global
    /// options, databases, password variables, output formats and exit codes.
    QString helpText() const;
    /// `triagectl COMMAND --help`: the command's usage, description and options, then the
    /// global options; empty for an unknown command.
    QString commandHelpText(const QString &name) const;

private:
    const Command *find(const QString &name) const;
    Command *find(const QString &name);
    /// Checks the command line shape of `command` (arguments, other commands' options).
    int checkShape(const Command &command, const QStringList &args);

    Output m_output;
    QCommandLineParser m_parser;
    QList<QCommandLineOption> m_globalOptions;
    std::vector<std::unique_ptr<Command>> m_commands;
};

} // namespace triage::ctl
