#include "ClaimQuestion.h"

#include <QMessageBox>
#include <QPushButton>

namespace triage {

QMessageBox *askBeforeActingOnClaimedKey(QWidget *parent, QObject *context, const QString &key, const Claim &claim,
                                         const QString &question, const QString &what, const QString &goLabel,
                                         std::function<void()> go)
{
    auto *box = new QMessageBox(QMessageBox::Question, QStringLiteral("Key claimed by %1").arg(claim.holder),
                                QStringLiteral("%1 is %2 (until %3).\n\n%4 Their claim stays; your %5 is audited as usual.")
                                    .arg(key, claimedByText(claim), claim.expiresAt, question, what),
                                QMessageBox::Cancel, parent);
    QPushButton *goButton = box->addButton(goLabel, QMessageBox::AcceptRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(goButton, &QPushButton::clicked, context, [go = std::move(go)] { go(); });
    box->open();
    return box;
}

} // namespace triage
