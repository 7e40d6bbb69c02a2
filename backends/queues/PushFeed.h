#pragma once
// PostgreSQL push for the live queues and the key detail (DESIGN.md §9 "Push"): one listener
// per PostgreSQL database, each on a dedicated connection in its own thread, LISTENing on the
// console's channel. A hint from the NOTIFY triggers only triggers a read; polling stays the
// base. The listener proves itself by a heartbeat: every `push_heartbeat_ms` it NOTIFYs its
// own channel and must hear that back; two heartbeats unheard (or a failed one) count as the
// connection lost: reconnect, LISTEN again, and resync (the models re-read everything).

#include "ConnectionProfile.h"
#include "StoreRole.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>

class QThread;

namespace triage {

struct WorkspaceConfig;
class PushListener;

/// The channel every console trigger notifies and every listener listens on (lower case:
/// QPSQL subscribes to the name as given).
inline constexpr char kPushChannel[] = "triage_console";
/// The name of the trigger on each mapped table and of its PL/pgSQL function.
inline constexpr char kPushTrigger[] = "triage_console_notify";

/// `role`'s mapped table as PostgreSQL SQL ("idempotency_record", billing."Idem") and its id
/// column as stored (the row's JSON member the trigger sends).
QPair<QString, QString> pushTable(const WorkspaceConfig &config, DbRole role);

/// One listener's (or the whole feed's) state.
enum class PushState {
    Off,         ///< no listener: push = false, or no PostgreSQL store
    Connecting,  ///< connecting, or LISTENing and waiting for the first heartbeat back
    Live,        ///< the last heartbeat came back: every change is heard
    Lost,        ///< the connection failed or two heartbeats went unheard; reconnecting
    Unavailable, ///< push cannot work here (no triggers, a pooler in the way): polling only; checked again every 30 s
};

/// What the console shows of one listener.
struct PushStatus {
    PushState state = PushState::Off;
    QString why;      ///< Lost / Unavailable: the reason, for operators
    QString sinceUtc; ///< Lost / Unavailable: canonical ISO UTC of the first failure
    QString where;    ///< "idempotency, intent, ticket on postgresql://triage@127.0.0.1:55432/triage"
};

/// The push listeners of a workspace's configuration, owned on the GUI thread (signals arrive
/// there). Each listener runs in its own thread; the feed never blocks the caller.
class PushFeed : public QObject {
    Q_OBJECT
public:
    /// One listener per distinct PostgreSQL database of `config`'s stores (`listen_url` where
    /// given), none when `config.push` is false. `heartbeatMs` 0: config.pushHeartbeatMs.
    explicit PushFeed(const WorkspaceConfig &config, QObject *parent = nullptr, int heartbeatMs = 0);
    ~PushFeed() override;

    /// Starts the listeners (no-op when there are none or already started).
    void start();
    /// Stops every listener and waits for its thread (the destructor does this too).
    void stop();

    /// True when at least one listener exists (a PostgreSQL store, push on).
    bool enabled() const { return !m_listeners.isEmpty(); }
    /// Each listener's status, in the order of the stores.
    QList<PushStatus> statuses() const;
    /// The worst state over the listeners (Lost > Unavailable > Connecting > Live); Off when none.
    PushState state() const;
    /// One line for the status bar: "push live (idempotency, intent, ticket)", "push lost since
    /// 12:01:07 UTC (…): reconnecting", "push unavailable (…): polling only", "" when off.
    QString statusText() const;
    /// Losses detected so far (for tests and the bench) and the most heartbeats any loss went
    /// unheard before it was detected.
    int losses() const { return m_losses; }
    int worstBeatsMissed() const { return m_worstBeatsMissed; }
    /// Hints received from other sessions so far.
    qint64 hints() const { return m_hints; }

signals:
    /// Rows of these stores (DbRole values) changed: re-read them. The first hint at once, the
    /// hints of the next 50 ms together when they end.
    void changed(const QSet<int> &roles);
    /// A listener (re)subscribed and heard its first heartbeat: changes before that moment
    /// were not heard, so re-read everything of these stores.
    void resynced(const QSet<int> &roles);
    /// statuses() changed.
    void stateChanged();

private:
    struct Entry {
        QThread *thread = nullptr;
        PushListener *listener = nullptr;
        QList<DbRole> roles;
        PushStatus status;
    };
    void onState(int index, int state, const QString &why);
    /// A listener blocked in a statement (a network that stopped answering) emits nothing:
    /// checked from here, every heartbeat.
    void watch();
    QList<Entry> m_listeners;
    QTimer m_watch;
    QSet<int> m_pending;
    QTimer m_coalesce;
    bool m_started = false;
    int m_losses = 0;
    int m_worstBeatsMissed = 0;
    qint64 m_hints = 0;
};

/// One listener: lives in its own thread (PushFeed moves it there). Internal to PushFeed,
/// declared here for moc.
class PushListener : public QObject {
    Q_OBJECT
public:
    struct Settings {
        ConnectionProfile profile;
        bool direct = false;        ///< `listen_url` given: no pooler check
        QList<DbRole> roles;        ///< the stores in this database
        QStringList tables;         ///< their mapped tables (pushTable())
        int heartbeatMs = 2000;
    };
    explicit PushListener(Settings settings);
    ~PushListener() override;
    /// When the last own heartbeat was heard, ms since the epoch (0: none yet). Any thread.
    qint64 lastHeardMs() const { return m_lastHeardMs.load(); }
    int heartbeatMs() const { return m_s.heartbeatMs; }

public slots:
    void begin();
    void end();

signals:
    void state(int state, const QString &why);
    void hint(int role);
    void resynced();
    void lost(int beatsMissed);

private:
    void connectNow();
    void heartbeat();
    void onNotification(const QString &name, int source, const QVariant &payload);
    void fail(PushState next, const QString &why, int retryMs);
    /// True when a console trigger is on one of the stores' tables; else fails Unavailable
    /// (checked again in 30 s). Throws DbException when the catalog read fails.
    bool triggersPresent();
    QString rolesText() const;
    void closeSession();

    Settings m_s;
    std::unique_ptr<class DbSession> m_session;
    QTimer *m_beat = nullptr;
    QTimer *m_retry = nullptr;
    qint64 m_sent = 0;     ///< heartbeats sent on this connection
    qint64 m_heard = 0;    ///< the last heartbeat heard back
    bool m_live = false;
    int m_backoffMs = 100;
    QString m_nonce;
    std::atomic<qint64> m_lastHeardMs{0};
};

} // namespace triage
