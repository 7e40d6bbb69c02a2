#include "DialogShot.h"

#include "ConnectDialog.h"
#include "StartPage.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>

#include <cstdio>

namespace triage {

std::optional<int> runStartPage(QCommandLineParser &parser)
{
    for (const char *option : {"demo", "demo-reset", "config", "profile", "idempotency-db", "intent-db", "ticket-db", "screenshot",
                               "screenshot-dialog", "open", "open-bundle"})
        if (parser.isSet(QLatin1String(option)))
            return std::nullopt;
    if (!StartPage::hasProfiles())
        return std::nullopt; // a fresh machine: the demo, as the quick start says
    for (;;) {
        StartPage page;
        page.exec();
        switch (page.choice()) {
        case StartPage::Choice::None: return 0;
        case StartPage::Choice::Demo: return std::nullopt;
        case StartPage::Choice::Profile:
            parser.process(QCoreApplication::arguments() << QStringLiteral("--profile") << page.profile());
            return std::nullopt;
        case StartPage::Choice::Connect: {
            ConnectDialog dialog;
            if (dialog.exec() == QDialog::Accepted)
                return 0; // it started a console on the profile
            break;
        }
        }
    }
}

int shootDialog(const QString &which, const QString &path, const QString &profile, const QString &action)
{
    if (which == QLatin1String("start")) { // the start page over the saved profiles
        StartPage page;
        page.show();
        QApplication::processEvents();
        if (!page.grab().save(path)) {
            std::fprintf(stderr, "triage-console: cannot write %s\n", qUtf8Printable(path));
            return 1;
        }
        return 0;
    }
    if (which != QLatin1String("connect")) {
        std::fprintf(stderr, "triage-console: --screenshot-dialog must be \"connect\" or \"start\"\n");
        return 1;
    }
    if (!action.isEmpty() && action != QLatin1String("test") && action != QLatin1String("test-replica")) {
        std::fprintf(stderr, "triage-console: with --screenshot-dialog, --screenshot-action must be \"test\" or \"test-replica\"\n");
        return 1;
    }
    ConnectDialog dialog;
    if (!profile.isEmpty() && !dialog.selectProfile(profile)) {
        std::fprintf(stderr, "triage-console: %s\n", qUtf8Printable(dialog.statusText()));
        return 1;
    }
    dialog.show();
    int pending = 0;
    int code = 2;
    auto shoot = [&] {
        // Long test results wrap onto more lines: give them the height they ask for.
        dialog.resize(dialog.width(), qMax(dialog.height(), dialog.sizeHint().height()));
        QApplication::processEvents();
        code = dialog.grab().save(path) ? 0 : 1;
        if (code != 0)
            std::fprintf(stderr, "triage-console: cannot write %s\n", qUtf8Printable(path));
        QApplication::exit(code);
    };
    // The password hints arrive from a worker thread; the tests take as long as the servers do.
    QObject::connect(&dialog, &ConnectDialog::testFinished, &dialog, [&] {
        if (--pending == 0)
            QTimer::singleShot(300, &dialog, shoot);
    });
    if (!action.isEmpty()) {
        // "test": each store's Test; "test-replica": each read replica's Test replica.
        const bool replica = action == QLatin1String("test-replica");
        QList<DbRole> roles;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
            if (!(replica ? dialog.replicaEdit(role) : dialog.urlEdit(role))->text().isEmpty())
                roles << role;
        pending = int(roles.size());
        for (DbRole role : roles)
            dialog.testStore(role, replica); // a URL that does not parse finishes at once
    }
    if (pending == 0)
        QTimer::singleShot(500, &dialog, shoot);
    QTimer::singleShot(60000, &dialog, [] {
        std::fprintf(stderr, "triage-console: the Connect dialog's tests did not finish within 60 s\n");
        QApplication::exit(2);
    });
    QApplication::exec();
    return code;
}

} // namespace triage
