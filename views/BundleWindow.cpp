#include "BundleWindow.h"

#include "IncidentView.h"
#include "KeyDetailView.h"
#include "StatusTone.h"
#include "Theme.h"
#include "WhenReady.h"

#include <QFileInfo>
#include <QHash>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace triage {

BundleWindow::BundleWindow(std::shared_ptr<const IncidentBundle> bundle, const QString &path, Workspace *workspace, QWidget *parent)
    : QMainWindow(parent), m_bundle(std::move(bundle)), m_workspace(workspace)
{
    setObjectName(QStringLiteral("bundleWindow"));
    setWindowTitle(QStringLiteral("%1 \u2014 bundle (read-only) \u2014 Triage Console").arg(QFileInfo(path).fileName()));

    // Each key's detail as the bundle holds it; a key it does not hold says so.
    auto details = std::make_shared<QHash<QString, KeyDetail>>();
    for (const KeyDetail &d : m_bundle->keys)
        details->insert(d.idemKey, d);
    auto reader = [details](const QString &key) {
        KeyDetail d = details->value(key);
        if (d.idemKey.isEmpty()) {
            d.idemKey = key;
            d.warnings << QStringLiteral("The bundle holds no detail for this key");
        }
        return QtFuture::makeReadyFuture(d);
    };

    m_hash = new QLabel(this);
    m_hash->setObjectName(QStringLiteral("bundleHash"));
    m_hash->setTextFormat(Qt::PlainText);
    m_hash->setWordWrap(true);
    m_hash->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hash->setMargin(6);

    m_incident = new IncidentView(nullptr, this);
    m_incident->showBundle(*m_bundle, reader, &m_pool);
    m_detail = new KeyDetailView(nullptr, this);
    m_detail->setDetailReader(reader);
    m_detail->setMinimumWidth(300);
    connect(m_incident, &IncidentView::keyActivated, m_detail, &KeyDetailView::loadKey);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_incident);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 7);
    split->setStretchFactor(1, 3);
    // The detail gets what its header and tables need side by side (nothing clipped at 1400 px).
    const int detailWidth = qBound(300, m_detail->minimumSizeHint().width(), 560);
    split->setSizes({1400 - detailWidth, detailWidth});

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_hash);
    layout->addWidget(split, 1);
    setCentralWidget(central);
    showHash(QStringLiteral("events hash %1 \u2014 checking\u2026").arg(m_bundle->eventsSha256), int(Tone::Neutral));
    checkHash();
}

BundleWindow::~BundleWindow()
{
    m_pool.waitForDone();
}

QString BundleWindow::hashText() const
{
    return m_hash->text();
}

void BundleWindow::showHash(const QString &text, int tone)
{
    m_hash->setText(text);
    const theme::ToneColors c = theme::toneColors(Tone(tone));
    m_hash->setStyleSheet(QStringLiteral("QLabel { color: %1; background: %2; border: 1px solid %3; %4 }")
                              .arg(c.foreground.name(), c.background.name(), c.border.name(),
                                   Tone(tone) == Tone::Danger ? QStringLiteral("font-weight: bold;") : QString()));
}

void BundleWindow::checkHash()
{
    // The events are hashed again off the GUI thread; the recorded value means nothing alone.
    const std::shared_ptr<const IncidentBundle> bundle = m_bundle;
    whenReady(QtConcurrent::run(&m_pool, [bundle] { return bundleEventsSha256(bundle->events); }), this,
              [this](const QString &computed) {
                  const QString sha = m_bundle->eventsSha256;
                  auto done = [this](const QString &text, Tone tone) {
                      showHash(text, int(tone));
                      m_hashDone = true;
                      emit hashChecked();
                  };
                  if (computed != sha) {
                      done(QStringLiteral("EVENTS HASH DOES NOT MATCH: the bundle records %1 but its events hash to %2 \u2014 "
                                          "the events were changed after the export; do not trust them")
                               .arg(sha.isEmpty() ? QStringLiteral("no hash") : sha, computed),
                           Tone::Danger);
                      return;
                  }
                  if (!m_workspace) {
                      done(QStringLiteral("events hash %1 \u2014 not checked: no database").arg(sha), Tone::Neutral);
                      return;
                  }
                  whenReady(findBundleExports(*m_workspace, sha), this,
                            [sha, done](const Outcome<QVector<BundleExportRecord>> &found) {
                                if (!found.ok())
                                    done(QStringLiteral("events hash %1 \u2014 not checked: %2").arg(sha, found.error->message), Tone::Warning);
                                else if (found->isEmpty())
                                    done(QStringLiteral("events hash %1 \u2014 no export with this hash is recorded in this database")
                                             .arg(sha),
                                         Tone::Warning);
                                else
                                    done(QStringLiteral("events hash %1 \u2014 matches the export recorded by %2 at %3")
                                             .arg(sha, found->first().exportedBy, found->first().exportedAt),
                                         Tone::Ok);
                            });
              });
}

} // namespace triage
