#include "BundleWindow.h"

#include "IncidentView.h"
#include "KeyDetailView.h"
#include "FutureChain.h"
#include "StatusTone.h"
#include "Theme.h"
#include "WhenReady.h"
#include "WindowEventSource.h"

#include <QFileInfo>
#include <QHash>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace triage {

BundleWindow::Whole BundleWindow::wholeOf(std::shared_ptr<const IncidentBundle> bundle)
{
    Whole w;
    w.bundle = std::move(bundle);
    for (qsizetype i = 0; i < w.bundle->keys.size(); ++i)
        w.keyIndex.insert(w.bundle->keys.at(i).idemKey, i);
    return w;
}

BundleWindow::BundleWindow(std::shared_ptr<const IncidentBundle> bundle, const QString &path, Workspace *workspace, QWidget *parent)
    : QMainWindow(parent), m_recordedSha(bundle->eventsSha256), m_bundle(bundle), m_workspace(workspace)
{
    m_whole = QtFuture::makeReadyFuture(wholeOf(bundle));
    build(*bundle, memoryEventSource(bundle->events), path);
    m_incident->setOfflineBundle(bundle);
}

BundleWindow::BundleWindow(BundleHead head, QByteArray bytes, const QString &path, Workspace *workspace, QWidget *parent)
    : QMainWindow(parent), m_recordedSha(head.bundle.eventsSha256), m_workspace(workspace)
{
    if (head.whole) {
        m_bundle = std::make_shared<const IncidentBundle>(std::move(head.bundle));
        m_whole = QtFuture::makeReadyFuture(wholeOf(m_bundle));
        build(*m_bundle, memoryEventSource(m_bundle->events), path);
        m_incident->setOfflineBundle(m_bundle);
        return;
    }
    // The rest of the file is read off the GUI thread; the first events show meanwhile.
    m_whole = QtConcurrent::run(&m_readPool, [bytes = std::move(bytes)] {
        QString error;
        std::optional<IncidentBundle> read = readBundleJson(bytes, &error);
        if (!read)
            return Whole{nullptr, error, {}};
        return wholeOf(std::make_shared<const IncidentBundle>(std::move(*read)));
    });
    // m_whole is shared (pages, keys' details, the hash): continueWith(), never then().
    auto events = continueWith(m_whole, &m_readPool, [](const Whole &w) {
        if (!w.bundle)
            return Outcome<QVector<WindowEvent>>::failure(
                {DbRole::Idempotency, DbError::Kind::Config, QStringLiteral("the bundle cannot be read whole: %1").arg(w.error), {}});
        return Outcome<QVector<WindowEvent>>::success(w.bundle->events);
    });
    const QVector<WindowEvent> first = head.bundle.events;
    build(head.bundle, memoryEventSource(first, head.eventCount, events), path);
}

void BundleWindow::build(const IncidentBundle &shown, std::unique_ptr<WindowEventSource> events, const QString &path)
{
    setObjectName(QStringLiteral("bundleWindow"));
    setWindowTitle(QStringLiteral("%1 \u2014 bundle (read-only) \u2014 Triage Console").arg(QFileInfo(path).fileName()));

    // Each key's detail as the bundle holds it (once read whole); a key it does not hold says so.
    const QFuture<Whole> whole = m_whole;
    // On the read pool: keyStateAsOf() jobs on m_pool wait for a key's detail, so what they
    // wait for must never queue behind them.
    QThreadPool *pool = &m_readPool;
    auto reader = [whole, pool](const QString &key) {
        auto lookup = [key](const Whole &w) {
            KeyDetail d;
            if (w.bundle && w.keyIndex.contains(key))
                return w.bundle->keys.at(w.keyIndex.value(key));
            d.idemKey = key;
            d.warnings << (w.bundle ? QStringLiteral("The bundle holds no detail for this key")
                                    : QStringLiteral("The bundle cannot be read whole: %1").arg(w.error));
            return d;
        };
        if (whole.isFinished())
            return QtFuture::makeReadyFuture(lookup(whole.result()));
        return continueWith(whole, pool, lookup);
    };

    m_hash = new QLabel(this);
    m_hash->setObjectName(QStringLiteral("bundleHash"));
    m_hash->setTextFormat(Qt::PlainText);
    m_hash->setWordWrap(true);
    m_hash->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hash->setMargin(6);

    m_incident = new IncidentView(nullptr, this);
    m_incident->showBundle(shown, std::move(events), reader, &m_pool);
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
    showHash(QStringLiteral("events hash %1 \u2014 checking\u2026").arg(m_recordedSha), int(Tone::Neutral));
    checkHash();
}

BundleWindow::~BundleWindow()
{
    m_readPool.waitForDone();
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
    // The events are hashed again off the GUI thread (once read whole); the recorded value
    // means nothing alone.
    using Checked = QPair<Whole, QString>;
    auto hashed = continueWith(m_whole, &m_readPool, [](const Whole &w) {
        return Checked(w, w.bundle ? bundleEventsSha256(w.bundle->events) : QString());
    });
    whenReady(hashed, this, [this](const Checked &checked) {
        const Whole &w = checked.first;
        const QString &computed = checked.second;
        auto done = [this](const QString &text, Tone tone) {
            showHash(text, int(tone));
            m_hashDone = true;
            emit hashChecked();
        };
        if (!w.bundle) {
            done(QStringLiteral("BUNDLE CANNOT BE READ WHOLE: %1 \u2014 only its first events are shown; the events "
                                "hash was not checked")
                     .arg(w.error),
                 Tone::Danger);
            return;
        }
        m_bundle = w.bundle;
        m_incident->setOfflineBundle(w.bundle);
        const QString sha = m_bundle->eventsSha256;
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
                  [sha, done, bundle = m_bundle](const Outcome<QVector<BundleExportRecord>> &found) {
                      if (!found.ok())
                          done(QStringLiteral("events hash %1 \u2014 not checked: %2").arg(sha, found.error->message), Tone::Warning);
                      else if (found->isEmpty())
                          done(QStringLiteral("events hash %1 \u2014 no export with this hash is recorded in this database")
                                   .arg(sha),
                               Tone::Warning);
                      else
                      {
                          const BundleExportRecord &r = *matchingExport(*bundle, *found);
                          done(QStringLiteral("events hash %1 \u2014 matches the export recorded by %2 at %3")
                                   .arg(sha, r.exportedBy, r.exportedAt),
                               Tone::Ok);
                      }
                  });
    });
}

} // namespace triage
