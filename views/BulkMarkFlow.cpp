#include "BulkMarkFlow.h"

#include "BulkMarkDialog.h"
#include "BulkMarkReportDialog.h"
#include "ClaimGuard.h"
#include "ClaimQuestion.h"
#include "EnvironmentBand.h"
#include "EscalationService.h"
#include "KeyDetailView.h"
#include "Log.h"
#include "MainWindow.h"
#include "Mark.h"
#include "TextEscape.h"
#include "WhenReady.h"
#include "Workspace.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QStatusBar>

#include <memory>

namespace triage {

namespace {

/// Marks `requests` (none: only the report) and opens the report with `skipped` after them.
void runBulkMark(MainWindow *window, Workspace *workspace, const QVector<MarkRequest> &requests, const QVector<ClaimBlock> &skipped)
{
    auto report = [window, requests, skipped](const QVector<Outcome<MarkResult>> &results) {
        window->statusBar()->clearMessage();
        auto *dialog = new BulkMarkReportDialog(requests, results, skipped, window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
        emit window->bulkDialogOpened(dialog);
        window->refreshAfterAction();
        window->detailView()->reload();
    };
    if (requests.isEmpty()) {
        report({});
        return;
    }
    window->statusBar()->showMessage(QStringLiteral("Marking %1\u2026").arg(countText(requests.size(), QStringLiteral("record"))));
    whenReady(markRecords(*workspace, requests), window, report);
}

} // namespace

void confirmBulkMark(MainWindow *window, Workspace *workspace, QVector<KeyDetail> details, RecordStatusCode toStatus)
{
    QStringList keys;
    for (const KeyDetail &d : std::as_const(details))
        keys << d.idemKey;
    // The claims that hold each key's work: the key's, else one on an open escalation of it.
    whenReady(keyWorkClaims(*workspace, keys), window,
              [window, workspace, keys, details = std::move(details), toStatus](const Outcome<QHash<QString, Claim>> &read) mutable {
                  // The claims as read, and since when (claimAsksFirst() counts their time down on this clock).
                  auto claims = std::make_shared<QHash<QString, Claim>>();
                  if (read.ok())
                      *claims = *read;
                  else
                      logger("views")->warn("bulk mark: claims not read: {}", read.error->message.toStdString());
                  auto readAt = std::make_shared<QElapsedTimer>();
                  readAt->start();
                  const QString me = claimOperator(*workspace, QString());
                  auto *dialog = new BulkMarkDialog(std::move(details), toStatus, claimsAskingFirst(keys, *claims, me, 0), window);
                  dialog->setAttribute(Qt::WA_DeleteOnClose);
                  stampEnvironmentOn(dialog, workspace->config()); // DESIGN.md §5 "Environments"
                  QObject::connect(dialog, &QDialog::accepted, window, [window, workspace, dialog, claims, readAt, me] {
                      const QVector<MarkRequest> requests = dialog->requests(workspace->config().operatorName);
                      QStringList marked;
                      for (const MarkRequest &r : requests)
                          marked << r.idemKey;
                      const QVector<ClaimBlock> held =
                          dialog->dryRunBox()->isChecked() ? QVector<ClaimBlock>() : claimsAskingFirst(marked, *claims, me, readAt->elapsed());
                      if (held.isEmpty()) {
                          runBulkMark(window, workspace, requests, {});
                          return;
                      }
                      QHash<QString, ClaimBlock> byKey;
                      for (const ClaimBlock &b : held)
                          byKey.insert(b.idemKey, b);
                      auto skip = [window, workspace, requests, held, byKey] {
                          QVector<MarkRequest> unclaimed;
                          for (const MarkRequest &r : requests)
                              if (!byKey.contains(r.idemKey))
                                  unclaimed << r;
                          runBulkMark(window, workspace, unclaimed, held);
                      };
                      auto all = [window, workspace, requests, byKey] {
                          QVector<MarkRequest> despite = requests;
                          for (MarkRequest &r : despite)
                              if (const auto b = byKey.constFind(r.idemKey); b != byKey.cend())
                                  r.reason += b->despiteNote();
                          runBulkMark(window, workspace, despite, {});
                      };
                      QMessageBox *question = stampEnvironment(
                          askBeforeBulkActingOnClaimedKeys(window, window, bulkClaimQuestionText(held, int(requests.size())),
                                                           std::move(skip), std::move(all)),
                          workspace->config());
                      emit window->bulkDialogOpened(question);
                  });
                  dialog->open();
                  emit window->bulkDialogOpened(dialog);
              });
}

} // namespace triage
