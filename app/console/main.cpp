// triage-console: the desktop console (DESIGN.md §5). With no options it opens the
// embedded demo workspace. --screenshot FILE.png renders the main window once the Unknown
// queue's first page (and the selected row's detail) has loaded, saves it and exits.
// Exit codes: 0 ok; 1 usage or configuration error (or the image cannot be written);
// 2 database error (including a screenshot that timed out waiting for the databases).

#include "AppSetup.h"
#include "BundleViewer.h"
#include "DeepLink.h"
#include "DialogShot.h"
#include "ProfileStore.h"
#include "DuplicatesPane.h"
#include "Log.h"
#include "IncidentPanel.h"
#include "IncidentView.h"
#include "MainWindow.h"
#include "ProposalsPane.h"
#include "PushFeed.h"
#include "MessageBar.h"
#include "Queue.h"
#include "ScreenshotRunner.h"
#include "UpstreamCheck.h"
#include "Compensation.h"
#include "UpstreamSimulatorProcess.h"
#include "Workspace.h"
#include "DemoWorkspace.h"
#include "Doctor.h"
#include "TimeText.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>

#include <cstdio>
#include <tuple>

using namespace triage;

int main(int argc, char *argv[])
{
    // --help and --version print and exit: they need no display (a terminal over ssh has none).
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if ((a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("triage-console"));
    QApplication::setApplicationDisplayName(QStringLiteral("Triage Console"));
    QApplication::setApplicationVersion(QStringLiteral(PROJECT_VERSION_TEXT));
    QApplication::setOrganizationName(QStringLiteral("triage-console"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Triage Console: settle idempotency records whose outcome is unknown, against the idempotency, intent-log and "
        "ticket databases. Without options it opens the embedded demo workspace."));
    parser.addHelpOption();
    parser.addVersionOption();
    app::addWorkspaceOptions(parser);
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the main window (1400x900) once the Unknown queue's first page "
                                                       "and the selected row's detail have loaded, save it as FILE.png and exit."),
                                        QStringLiteral("FILE.png"));
    const QCommandLineOption select(QStringLiteral("select"),
                                    QStringLiteral("Open the detail of KEY at start (with --screenshot: before the shot; "
                                                   "default: the Unknown queue's first row)."),
                                    QStringLiteral("KEY"));
    QCommandLineOption screenshotAction(QStringLiteral("screenshot-action"),
                                        QStringLiteral("With --screenshot: run ACTION on the selected key before the shot "
                                                       "(\"query\": Query upstream)."),
                                        QStringLiteral("ACTION"));
    QCommandLineOption screenshotTab(QStringLiteral("screenshot-tab"),
                                     QStringLiteral("With --screenshot: shoot TAB (\"incident\": the Incident tab with the window "
                                                    "of --incident-from/--incident-to, default the last 24 h; on the demo its outage; \"review\": the Review "
                                                    "tab on today's review with its first item's key; \"duplicates\": the Duplicate keys tab with its first group's tickets; "
                                                    "\"proposals\": the Proposals tab)."),
                                     QStringLiteral("TAB"));
    QCommandLineOption incidentFrom(QStringLiteral("incident-from"),
                                    QStringLiteral("Open the Incident tab on a window starting at TIME (ISO UTC)."), QStringLiteral("TIME"));
    QCommandLineOption incidentTo(QStringLiteral("incident-to"),
                                  QStringLiteral("Open the Incident tab on a window ending at TIME (ISO UTC, excluded)."), QStringLiteral("TIME"));
    QCommandLineOption incidentSelect(QStringLiteral("incident-select"),
                                      QStringLiteral("With --screenshot-tab incident or --open-bundle: make event row ROW (0 = first) the playhead "
                                                     "and shoot its \"As of T\" panel."),
                                      QStringLiteral("ROW"));
    parser.addOption(screenshot);
    parser.addOption(select);
    parser.addOption(screenshotAction);
    parser.addOption(screenshotTab);
    const QCommandLineOption incidentId(QStringLiteral("incident"),
                                        QStringLiteral("Open the Incident tab on incident ID (its window, filters, pins and notes)."),
                                        QStringLiteral("ID"));
    parser.addOption(incidentId);
    const QCommandLineOption openBundle(QStringLiteral("open-bundle"),
                                        QStringLiteral("Open an incident bundle (FILE, JSON) read-only, offline: no database needed. "
                                                       "With --config, --demo or --*-db its events hash is also checked against the "
                                                       "exports recorded there."),
                                        QStringLiteral("FILE"));
    parser.addOption(openBundle);
    const QCommandLineOption openLink(QStringLiteral("open"),
                                      QStringLiteral("Open a triage:// link: triage://key/KEY shows that key's detail, "
                                                     "triage://window?from=…&to=…&… the Incident tab on that window with its "
                                                     "event selected."),
                                      QStringLiteral("LINK"));
    parser.addOption(openLink);
    const QCommandLineOption screenshotDialog(QStringLiteral("screenshot-dialog"),
                                              QStringLiteral("With --screenshot: shoot DIALOG alone, no workspace needed (\"connect\": File → "
                                                             "Connect… on the profile --select names; --screenshot-action test "
                                                             "tests each store first, test-replica each read replica; \"start\": "
                                                             "the start page over the saved profiles)."),
                                              QStringLiteral("DIALOG"));
    parser.addOption(screenshotDialog);
    parser.addOption(incidentFrom);
    parser.addOption(incidentTo);
    parser.addOption(incidentSelect);
    if (!parser.parse(QApplication::arguments())) {
        std::fprintf(stderr, "triage-console: %s\n", qUtf8Printable(parser.errorText()));
        return 1;
    }
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("help-all")))
        parser.process(QApplication::arguments()); // prints the Qt options too and exits
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "triage-console: unexpected argument \"%s\" (see --help)\n",
                     qUtf8Printable(parser.positionalArguments().first()));
        return 1;
    }
    if (parser.isSet(select) && parser.value(select).trimmed().isEmpty()) {
        std::fprintf(stderr, "triage-console: --select needs a key\n");
        return 1;
    }
    if (parser.isSet(screenshot) && parser.value(screenshot).trimmed().isEmpty()) {
        std::fprintf(stderr, "triage-console: --screenshot needs a file name\n");
        return 1;
    }

    std::optional<DeepLink> link;
    if (parser.isSet(openLink)) {
        QString linkError;
        link = parseDeepLink(parser.value(openLink), &linkError);
        if (!link) {
            std::fprintf(stderr, "triage-console: --open: %s\n", qUtf8Printable(linkError));
            return 1;
        }
        for (const QCommandLineOption *other : std::initializer_list<const QCommandLineOption *>{&select, &incidentId, &incidentFrom, &incidentTo})
            if (parser.isSet(*other)) {
                std::fprintf(stderr, "triage-console: --open takes the key or window from the link: leave out --%s\n",
                             qUtf8Printable(other->names().first()));
                return 1;
            }
    }

    app::setupLogging(QStringLiteral("triage-console"), parser.isSet(QStringLiteral("verbose")));
    if (parser.isSet(openBundle)) {
        int row = -1;
        if (parser.isSet(incidentSelect)) {
            bool ok = false;
            row = parser.value(incidentSelect).toInt(&ok);
            if (!ok || row < 0) {
                std::fprintf(stderr, "triage-console: --incident-select: not a row number: \"%s\"\n",
                             qUtf8Printable(parser.value(incidentSelect)));
                return 1;
            }
        }
        return runBundleViewer(parser, parser.value(openBundle), parser.value(screenshot), row);
    }
    if (parser.isSet(screenshotDialog)) {
        if (!parser.isSet(screenshot)) {
            std::fprintf(stderr, "triage-console: --screenshot-dialog needs --screenshot FILE.png\n");
            return 1;
        }
        return shootDialog(parser.value(screenshotDialog), parser.value(screenshot), parser.value(select).trimmed(),
                           parser.value(screenshotAction));
    }
    if (const std::optional<int> ended = runStartPage(parser)) // DESIGN.md §5 "Start page"
        return *ended;
    QString error;
    bool dbError = false;
    auto config = app::workspaceFromOptions(parser, /*demoByDefault*/ true, &error, &dbError);
    if (!config) {
        for (const QString &line : error.split(QLatin1Char('\n'))) // a config file may have several problems
            std::fprintf(stderr, "triage-console: %s\n", qUtf8Printable(line));
        return dbError ? 2 : 1;
    }
    applyEnvironmentStart(*config); // DESIGN.md §5 "Environments": production opens read-only
    if (parser.isSet(QStringLiteral("profile")))
        ProfileStore().noteUsed(parser.value(QStringLiteral("profile"))); // the recent list (File → Connect…)
    if (parser.isSet(screenshotAction) && parser.value(screenshotAction) != QLatin1String("query")) {
        std::fprintf(stderr, "triage-console: --screenshot-action must be \"query\"\n");
        return 1;
    }
    const bool reviewTab = parser.value(screenshotTab) == QLatin1String("review");
    const bool duplicatesTab = parser.value(screenshotTab) == QLatin1String("duplicates");
    const bool proposalsTab = parser.value(screenshotTab) == QLatin1String("proposals");
    if (parser.isSet(screenshotTab) && parser.value(screenshotTab) != QLatin1String("incident") && !reviewTab && !duplicatesTab
        && !proposalsTab) {
        std::fprintf(stderr, "triage-console: --screenshot-tab must be \"incident\", \"review\", \"duplicates\" or \"proposals\"\n");
        return 1;
    }
    // The Incident tab's window: absolute UTC; a missing end is now, a missing start 24 h before the end.
    const bool windowLink = link && link->kind == DeepLink::Kind::Window;
    const bool incident = (parser.isSet(screenshotTab) && !reviewTab && !duplicatesTab && !proposalsTab) || parser.isSet(incidentFrom) || parser.isSet(incidentTo) || windowLink;
    UtcMicros incidentEnd = (QDateTime::currentMSecsSinceEpoch() / 1000 + 1) * 1000000;
    UtcMicros incidentStart = 0;
    for (const auto &[option, target] : {std::pair{&incidentTo, &incidentEnd}, std::pair{&incidentFrom, &incidentStart}}) {
        if (!parser.isSet(*option))
            continue;
        const auto t = parseUtcMicros(parser.value(*option));
        if (!t) {
            std::fprintf(stderr, "triage-console: --%s: not an ISO time: \"%s\"\n", qUtf8Printable(option->names().first()),
                         qUtf8Printable(parser.value(*option)));
            return 1;
        }
        *target = *t;
    }
    if (!parser.isSet(incidentFrom))
        incidentStart = incidentEnd - 24LL * 3600 * 1000000;
    int incidentRow = -1;
    if (parser.isSet(incidentSelect)) {
        bool ok = false;
        incidentRow = parser.value(incidentSelect).toInt(&ok);
        if (!ok || incidentRow < 0) {
            std::fprintf(stderr, "triage-console: --incident-select: not a row number: \"%s\"\n",
                         qUtf8Printable(parser.value(incidentSelect)));
            return 1;
        }
    }
    qint64 openIncidentId = 0;
    if (parser.isSet(incidentId)) {
        bool ok = false;
        openIncidentId = parser.value(incidentId).trimmed().toLongLong(&ok);
        if (!ok || openIncidentId <= 0) {
            std::fprintf(stderr, "triage-console: --incident \"%s\": give an incident id\n", qUtf8Printable(parser.value(incidentId)));
            return 1;
        }
    }
    // The demo's Incident tab opens on its outage unless a window was given (DESIGN.md §7).
    const auto demoWindow = config->isDemo && !parser.isSet(incidentFrom) && !parser.isSet(incidentTo) && !windowLink
        ? DemoWorkspace::incidentWindow()
        : std::nullopt;
    if (demoWindow)
        std::tie(incidentStart, incidentEnd) = *demoWindow;
    if (incident && incidentEnd <= incidentStart) {
        std::fprintf(stderr, "triage-console: --incident-to must be after --incident-from\n");
        return 1;
    }

    // The demo's upstream is the simulator on the demo's ticket database, started here,
    // before the window exists (start() waits for its port line; QProcess must live on this
    // thread), and stopped when main() returns. Without it the demo simply has no upstream.
    UpstreamSimulatorProcess simulator;
    QString simError; // why the demo has no upstream, shown in the window too
    if (config->isDemo && config->upstreams.isEmpty()) {
        if (simulator.start(QStringLiteral("sqlite://") + DemoWorkspace::path(), &simError))
        {
            config->upstreams = demoUpstreams(simulator.baseUrl());
            config->compensations = demoCompensations(simulator.baseUrl().toString());
        }
        else
            logger("app")->warn("the demo's upstream simulator did not start ({}): Query upstream is disabled",
                                simError.toStdString());
    }

    Workspace workspace(*config);
    // A mapping that does not match a store's tables is that store's state (its connection
    // event), not a SQL error at first use (DESIGN.md §10 "Checked at open").
    installMappingCheck(workspace);
    // DESIGN.md §9 "Push": a listener per PostgreSQL database whose tables carry the NOTIFY
    // triggers ([console] push = false: none). Made before the window, so it outlives it.
    PushFeed push(workspace.config());
    MainWindow window(&workspace);
    window.resize(1400, 900);
    window.setLivePolling(livePollSeconds(*config)); // DESIGN.md §9 "Live queues"; 0 turns it off
    if (push.enabled()) {
        window.setPushFeed(&push);
        push.start();
    }
    if (!simError.isEmpty())
        window.configWarningBar()->showMessage(MessageBar::Level::Warning,
                                               QStringLiteral("The demo's upstream simulator did not start (%1): Query upstream and "
                                                              "compensations are off in this window.")
                                                   .arg(simError));
    if (link) {
        window.openLink(*link);
    } else if (openIncidentId > 0) {
        QObject::connect(window.incidentView()->incidentPanel(), &IncidentPanel::openFailed, &app, [](const QString &why) {
            std::fprintf(stderr, "triage-console: incident not opened: %s\n", qUtf8Printable(why));
        });
        window.openIncident(openIncidentId);
    }
    else if (incident)
        window.showIncident(incidentStart, incidentEnd);
    else if (reviewTab)
        window.showReview(); // loads the day's review when shown
    else if (duplicatesTab)
        window.showTab(window.duplicatesPane()); // loads its first page when shown
    else if (proposalsTab)
        window.showTab(window.proposalsPane());
    else if (demoWindow)
        window.incidentView()->setRange(incidentStart, incidentEnd); // loads when first shown

    int exitCode = 0;
    std::unique_ptr<ScreenshotRunner> runner;
    if (parser.isSet(screenshot)) {
        const QString selectKey = link && link->kind == DeepLink::Kind::Key ? link->key : parser.value(select).trimmed();
        runner = std::make_unique<ScreenshotRunner>(&window, parser.value(screenshot), selectKey);
        runner->setAction(parser.value(screenshotAction));
        runner->setIncidentTab(incident || openIncidentId > 0);
        runner->setIncidentSelect(incidentRow);
        runner->setReviewTab(reviewTab);
        runner->setDuplicatesTab(duplicatesTab);
        runner->setProposalsTab(proposalsTab);
        QObject::connect(runner.get(), &ScreenshotRunner::finished, &app, [&exitCode](int code, const QString &message) {
            if (!message.isEmpty())
                std::fprintf(stderr, "triage-console: %s\n", qUtf8Printable(message));
            exitCode = code;
            QApplication::exit(code);
        });
        runner->start();
    } else if (parser.isSet(select)) {
        window.openKey(parser.value(select));
    }
    window.show();
    const int rc = QApplication::exec();
    return runner ? exitCode : rc;
}
