#include "DialogShot.h"

#include "ConnectDialog.h"

#include <QApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>

#include <cstdio>

namespace triage {

int shootDialog(const QString &which, const QString &path, const QString &profile, const QString &action)
{
    if (which != QLatin1String("connect")) {
        std::fprintf(stderr, "triage-console: --screenshot-dialog must be \"connect\"\n");
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
