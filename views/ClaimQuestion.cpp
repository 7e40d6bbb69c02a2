#include "ClaimQuestion.h"

#include <QMessageBox>
#include <QPushButton>

namespace triage {

QMessageBox *askBeforeActingOnClaimedKey(QWidget *parent, QObject *context, const QString &key, const Claim &claim,
                                         const QString &question, const QString &what, const QString &goLabel,
                                         std::function<void()> go)
{
    auto *box = new QMessageBox(QMessageBox::Question, QStringLiteral("Key claimed by %1").arg(claim.holder),
                                QStringLiteral("%1 is %2.\n\n%3 Their claim stays; your %4 is audited as usual.")
                                    .arg(key, claimedUntilText(claim), question, what),
                                QMessageBox::Cancel, parent);
    QPushButton *goButton = box->addButton(goLabel, QMessageBox::AcceptRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(goButton, &QPushButton::clicked, context, [go = std::move(go)] { go(); });
    box->open();
    return box;
}

QMessageBox *askBeforeBulkActingOnClaimedKeys(QWidget *parent, QObject *context, const QString &text, std::function<void()> skip,
                                              std::function<void()> all)
{
    auto *box = new QMessageBox(QMessageBox::Question, QStringLiteral("Keys claimed by others"), text, QMessageBox::Cancel, parent);
    box->setObjectName(QStringLiteral("bulkClaimQuestion"));
    QPushButton *skipButton = box->addButton(QStringLiteral("Skip claimed keys"), QMessageBox::AcceptRole);
    QPushButton *allButton = box->addButton(QStringLiteral("Mark all anyway"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(skipButton, &QPushButton::clicked, context, [skip = std::move(skip)] { skip(); });
    QObject::connect(allButton, &QPushButton::clicked, context, [all = std::move(all)] { all(); });
    box->open();
    return box;
}

} // namespace triage
