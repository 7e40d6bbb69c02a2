#pragma once

#include "Bundle.h"

#include <QFuture>
#include <QHash>
#include <QMainWindow>
#include <QThreadPool>

#include <memory>

class QLabel;

namespace triage {

class IncidentView;
class WindowEventSource;
class KeyDetailView;
class Workspace;

/// The offline viewer (DESIGN.md §7 "Offline viewer", `triage-console --open-bundle FILE`): one
/// bundle, read-only, with no database needed. The Incident view shows every event of the
/// bundle (IncidentView::showBundle(): paged from memory, histogram and summary from the
/// bundle's summary, pins and notes); the detail pane and the "As of T" panel read each key's
/// detail from the bundle (a key the bundle does not hold says so). Above them, the events
/// hash: recomputed from the events (bundleEventsSha256(), off the GUI thread) and, when a
/// workspace is given, looked up among the recorded exports (findBundleExports()):
/// "events hash <sha> — matches the export recorded by <operator> at <time>", "… not checked:
/// no database", or in red when the events do not hash to the recorded value. Every write
/// action is disabled; the title says "bundle (read-only)".
class BundleWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `path` is the file it was read from (for the title); `workspace` (may be null: no
    /// database) only checks the hash and must outlive the window.
    BundleWindow(std::shared_ptr<const IncidentBundle> bundle, const QString &path, Workspace *workspace,
                 QWidget *parent = nullptr);
    /// Opens a bundle while it is read (readBundleHead(); `--open-bundle`): the header, summary
    /// and first events of `head` show at once; unless head.whole, the file's `bytes` are read
    /// whole (readBundleJson()) on the window's pool, and the later pages, the keys' details, the
    /// hash check and Export… wait for that. The hash line says "checking…" until the events are
    /// read and hashed; a file that fails to read whole says so there in red ("BUNDLE CANNOT BE
    /// READ WHOLE: <reason> …"), the first events staying shown.
    BundleWindow(BundleHead head, QByteArray bytes, const QString &path, Workspace *workspace, QWidget *parent = nullptr);
    ~BundleWindow() override;

    IncidentView *incidentView() const { return m_incident; }
    KeyDetailView *detailView() const { return m_detail; }
    /// The hash line as shown ("" until the check is done).
    QString hashText() const;
    /// True once the hash check is over (hashChecked() emitted).
    bool hashDone() const { return m_hashDone; }

signals:
    /// The hash line is final (matched, mismatched, not checked).
    void hashChecked();

private:
    /// The whole bundle as read, or why it could not be, with its keys' positions.
    struct Whole {
        std::shared_ptr<const IncidentBundle> bundle; ///< null when the read failed
        QString error;
        QHash<QString, qsizetype> keyIndex; ///< idem_key → index in bundle->keys
    };
    static Whole wholeOf(std::shared_ptr<const IncidentBundle> bundle);
    void build(const IncidentBundle &shown, std::unique_ptr<WindowEventSource> events, const QString &path);
    void checkHash();
    void showHash(const QString &text, int tone);

    QString m_recordedSha; ///< the header's events_sha256
    std::shared_ptr<const IncidentBundle> m_bundle; ///< the whole bundle once read
    Workspace *m_workspace;
    QThreadPool m_pool; ///< keyStateAsOf() (may wait for a key's detail): never the GUI thread
    QThreadPool m_readPool; ///< the whole read, its hash and the keys' lookups (never wait on m_pool)
    QFuture<Whole> m_whole; ///< the whole bundle (finished at once for a bundle given whole)
    QLabel *m_hash;
    IncidentView *m_incident;
    KeyDetailView *m_detail;
    bool m_hashDone = false;
};

} // namespace triage
