#include "BundleViewer.h"

#include "AppSetup.h"
#include "Bundle.h"
#include "BundleWindow.h"
#include "Doctor.h"
#include "IncidentView.h"
#include "KeyDetailView.h"
#include "ReplayPanel.h"
#include "WindowEventsModel.h"
#include "Workspace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTableView>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace triage {

int runBundleViewer(const QCommandLineParser &parser, const QString &file, const QString &screenshotPath, int selectRow)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "triage-console: %s: %s\n", qUtf8Printable(file), qUtf8Printable(f.errorString()));
        return 1;
    }
    QString error;
    // The header and the first page now; the rest is read by the window, off the GUI thread.
    const QByteArray bytes = f.readAll();
    f.close();
    std::optional<BundleHead> head = readBundleHead(bytes, kBundleFirstEvents, &error);
    if (!head) {
        std::fprintf(stderr, "triage-console: %s: %s\n", qUtf8Printable(file), qUtf8Printable(error));
        return 1;
    }

    // A database only when the operator named one: it checks the hash, nothing else.
    std::unique_ptr<Workspace> workspace;
    bool named = false;
    for (const char *option : {"config", "profile", "demo", "demo-reset", "idempotency-db", "intent-db", "ticket-db"})
        named = named || parser.isSet(QString::fromLatin1(option));
    if (named) {
        bool dbError = false;
        auto config = app::workspaceFromOptions(parser, /*demoByDefault*/ false, &error, &dbError);
        if (!config) {
            for (const QString &line : error.split(QLatin1Char('\n')))
                std::fprintf(stderr, "triage-console: %s\n", qUtf8Printable(line));
            return dbError ? 2 : 1;
        }
        workspace = std::make_unique<Workspace>(*config);
        installMappingCheck(*workspace);
    }

    BundleWindow window(std::move(*head), bytes, file, workspace.get());
    window.resize(1400, 900);
    window.show();
    if (screenshotPath.isEmpty())
        return QApplication::exec();

    // The shot: the first page and the hash check, then (with a row) its "As of T" panel.
    int exitCode = 0;
    bool pageIn = false, asOfIn = selectRow < 0, detailIn = true, selected = false, shooting = false;
    IncidentView *view = window.incidentView();
    auto maybeShoot = [&] {
        if (!pageIn || !window.hashDone())
            return;
        if (!selected && selectRow >= 0) {
            selected = true;
            QAbstractItemModel *events = view->eventTable()->model();
            if (selectRow < events->rowCount() && !events->index(selectRow, 0).data(WindowEventsModel::IsGapRole).toBool()) {
                // Selected and opened as the operator would: the "As of T" panel and the key's
                // detail come next.
                detailIn = events->index(selectRow, 0).data(WindowEventsModel::IdemKeyRole).toString().isEmpty();
                view->activateEventRow(selectRow);
                return;
            }
            std::fprintf(stderr, "triage-console: --incident-select %d: not an event row of the bundle's first page\n", selectRow);
            asOfIn = true;
        }
        if (!asOfIn || !detailIn || shooting)
            return;
        shooting = true;
        QTimer::singleShot(250, &window, [&] {
            if (!window.grab().save(screenshotPath)) {
                std::fprintf(stderr, "triage-console: cannot write %s\n", qUtf8Printable(screenshotPath));
                exitCode = 1;
            }
            QApplication::exit(exitCode);
        });
    };
    QObject::connect(view, &IncidentView::windowLoaded, &window, [&] {
        pageIn = true;
        maybeShoot();
    });
    QObject::connect(&window, &BundleWindow::hashChecked, &window, [&] { maybeShoot(); });
    QObject::connect(window.detailView(), &KeyDetailView::detailLoaded, &window, [&] {
        if (selected && !detailIn) {
            detailIn = true;
            maybeShoot();
        }
    });
    QObject::connect(view->replayPanel(), &ReplayPanel::asOfLoaded, &window, [&] {
        if (selected && !asOfIn) {
            asOfIn = true;
            maybeShoot();
        }
    });
    QTimer::singleShot(60000, &window, [&] {
        std::fprintf(stderr, "triage-console: the bundle's view did not load within 60 s\n");
        exitCode = 2;
        window.grab().save(screenshotPath);
        QApplication::exit(2);
    });
    QApplication::exec();
    return exitCode;
}

} // namespace triage
