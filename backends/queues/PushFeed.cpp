// PostgreSQL push (DESIGN.md §9 "Push"): the listeners and the feed that gathers them.
#include "PushFeed.h"

#include "DbSession.h"
#include "Log.h"
#include "SqlBuilder.h"
#include "TimeText.h"
#include "WorkspaceConfig.h"

#include <QSqlDriver>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>

namespace triage {

QPair<QString, QString> pushTable(const WorkspaceConfig &config, DbRole role)
{
    switch (role) {
    case DbRole::Idempotency:
        return {config.records(Dialect::PostgreSql).table, config.schema.records.id};
    case DbRole::Intent:
        return {config.intents(Dialect::PostgreSql).table, config.schema.intents.id};
    case DbRole::Ticket:
        break;
    }
    return {config.tickets(Dialect::PostgreSql).table, config.schema.tickets.id};
}

namespace {

/// How often a listener that cannot work here (no triggers, a pooler) looks again, in ms.
constexpr int kRecheckMs = 30000;
/// The longest wait between reconnect attempts, in ms (doubling from 100 ms).
constexpr int kMaxBackoffMs = 5000;

QString nowUtc()
{
    return formatUtcMicros(QDateTime::currentMSecsSinceEpoch() * 1000);
}

} // namespace

// ---- PushListener: runs in its own thread ----

PushListener::PushListener(Settings settings) : m_s(std::move(settings)) {}

PushListener::~PushListener() = default;

void PushListener::begin()
{
    m_beat = new QTimer(this);
    m_retry = new QTimer(this);
    m_retry->setSingleShot(true);
    connect(m_beat, &QTimer::timeout, this, &PushListener::heartbeat);
    connect(m_retry, &QTimer::timeout, this, &PushListener::connectNow);
    m_nonce = QUuid::createUuid().toString(QUuid::Id128).left(12);
    connectNow();
}

void PushListener::end()
{
    if (m_beat)
        m_beat->stop();
    if (m_retry)
        m_retry->stop();
    closeSession();
}

void PushListener::closeSession()
{
    if (!m_session)
        return;
    if (QSqlDriver *d = m_session->db().driver())
        d->disconnect(this);
    m_session.reset(); // closes the connection (a dead one too)
}

void PushListener::connectNow()
{
    closeSession();
    m_live = false;
    m_sent = m_heard = 0;
    emit state(int(PushState::Connecting), {});
    try {
        m_session = std::make_unique<DbSession>(m_s.profile, QStringLiteral("push-%1-%2").arg(roleName(m_s.roles.value(0))).arg(quintptr(this)));
        m_session->ensureOpen();
        if (!m_s.direct) {
            // Through a pooler or a proxy the server sees its own port (or a local socket), not
            // ours: LISTEN would land on a pooled session that another client gets next.
            QSqlQuery q = m_session->exec(QStringLiteral("SELECT inet_server_port()"));
            const QVariant port = q.next() ? q.value(0) : QVariant();
            const int ours = m_s.profile.port ? m_s.profile.port : 5432;
            if (port.isNull() || port.toInt() != ours) {
                fail(PushState::Unavailable,
                     QStringLiteral("%1 does not reach the server directly (the server answers on %2): a pooler or proxy "
                                    "is in the way, and LISTEN needs a session of its own; give listen_url a direct URL")
                         .arg(m_s.profile.displayUrl(),
                              port.isNull() ? QStringLiteral("a local socket") : QStringLiteral("port %1").arg(port.toInt())),
                     kRecheckMs);
                return;
            }
        }
        if (!triggersPresent())
            return;
        QSqlDriver *driver = m_session->db().driver();
        connect(driver, &QSqlDriver::notification, this,
                [this](const QString &name, QSqlDriver::NotificationSource source, const QVariant &payload) {
                    onNotification(name, int(source), payload);
                });
        if (!driver->subscribeToNotification(QString::fromLatin1(kPushChannel))) {
            fail(PushState::Lost, QStringLiteral("LISTEN %1 failed: %2").arg(QString::fromLatin1(kPushChannel), driver->lastError().text()), 0);
            return;
        }
    } catch (const DbException &e) {
        fail(PushState::Lost, e.error.message, 0);
        return;
    }
    heartbeat(); // the first probe at once: live when it comes back
    m_beat->start(m_s.heartbeatMs);
}

bool PushListener::triggersPresent()
{
    SqlBuilder b;
    QStringList regs;
    for (const QString &t : std::as_const(m_s.tables))
        regs << QStringLiteral("to_regclass(%1)").arg(b.bind(t));
    QSqlQuery q = m_session->exec(QStringLiteral("SELECT count(*) FROM pg_trigger WHERE tgname = %1 AND NOT tgisinternal AND tgrelid IN (%2)")
                                      .arg(b.bind(QString::fromLatin1(kPushTrigger)), regs.join(QStringLiteral(", "))),
                                  b);
    if (q.next() && q.value(0).toLongLong() > 0)
        return true;
    fail(PushState::Unavailable,
         QStringLiteral("no NOTIFY triggers on %1 (`triagectl notify install` adds them)").arg(m_s.tables.join(QStringLiteral(", "))),
         kRecheckMs);
    return false;
}

void PushListener::heartbeat()
{
    if (!m_session)
        return;
    // Triggers removed while listening (`notify uninstall` elsewhere): no hint will come.
    if (m_live && m_sent > 0 && m_sent % std::max<qint64>(1, kRecheckMs / m_s.heartbeatMs) == 0) {
        try {
            if (!triggersPresent())
                return;
        } catch (const DbException &e) {
            fail(PushState::Lost, e.error.message, 0);
            emit lost(1);
            return;
        }
    }
    const qint64 unheard = m_sent - m_heard;
    if (unheard >= 2) {
        if (!m_live) { // never heard one: the channel does not work through this connection
            fail(PushState::Unavailable,
                 QStringLiteral("LISTEN succeeded but its own NOTIFY never came back (a pooler in transaction mode?); give "
                                "listen_url a direct URL"),
                 kRecheckMs);
            return;
        }
        fail(PushState::Lost, QStringLiteral("%1 heartbeats (%2 ms apart) not heard back").arg(unheard).arg(m_s.heartbeatMs), 0);
        emit lost(int(unheard)); // after the state: whoever counts losses sees it lost already
        return;
    }
    try {
        SqlBuilder b;
        m_session->exec(QStringLiteral("SELECT pg_notify(%1, %2)")
                            .arg(b.bind(QString::fromLatin1(kPushChannel)),
                                 b.bind(QStringLiteral("heartbeat %1 %2").arg(m_nonce).arg(m_sent + 1))),
                        b);
        ++m_sent;
    } catch (const DbException &e) {
        const bool wasLive = m_live;
        fail(PushState::Lost, e.error.message, 0);
        if (wasLive)
            emit lost(int(unheard) + 1);
    }
}

void PushListener::onNotification(const QString &name, int source, const QVariant &payload)
{
    Q_UNUSED(source);
    if (name != QLatin1String(kPushChannel))
        return;
    const QString text = payload.toString();
    if (text.startsWith(QLatin1String("heartbeat "))) {
        const QStringList parts = text.split(QLatin1Char(' '));
        if (parts.size() != 3 || parts[1] != m_nonce)
            return; // another console's heartbeat
        m_heard = std::max(m_heard, parts[2].toLongLong());
        m_lastHeardMs = QDateTime::currentMSecsSinceEpoch();
        if (!m_live) {
            m_live = true;
            m_backoffMs = 100;
            logger("db")->info("push listener for {} on {}: live", rolesText().toStdString(), m_s.profile.displayUrl().toStdString());
            emit state(int(PushState::Live), {});
            emit resynced();
        }
        return;
    }
    const QString store = text.section(QLatin1Char(' '), 0, 0);
    for (DbRole role : std::as_const(m_s.roles))
        if (roleName(role) == store)
            emit hint(int(role));
}

QString PushListener::rolesText() const
{
    QStringList names;
    for (DbRole r : m_s.roles)
        names << roleName(r);
    return names.join(QStringLiteral(", "));
}

void PushListener::fail(PushState next, const QString &why, int retryMs)
{
    if (m_beat)
        m_beat->stop();
    closeSession();
    m_live = false;
    m_lastHeardMs = 0; // the watchdog must not take an old heartbeat for a new one
    logger("db")->warn("push listener for {} on {}: {}", rolesText().toStdString(), m_s.profile.displayUrl().toStdString(), why.toStdString());
    emit state(int(next), why);
    int delay = retryMs;
    if (delay <= 0) {
        delay = m_backoffMs;
        m_backoffMs = std::min(m_backoffMs * 2, kMaxBackoffMs);
    }
    m_retry->start(delay);
}

// ---- PushFeed: on the owner's thread ----

PushFeed::PushFeed(const WorkspaceConfig &config, QObject *parent, int heartbeatMs) : QObject(parent)
{
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(50);
    // Leading edge: the first hint is passed on at once, the ones within the next 50 ms
    // together when it ends (a burst costs one read per 50 ms, a lone change no wait).
    connect(&m_coalesce, &QTimer::timeout, this, [this] {
        if (m_pending.isEmpty())
            return;
        const QSet<int> roles = m_pending;
        m_pending.clear();
        m_coalesce.start();
        emit changed(roles);
    });
    connect(&m_watch, &QTimer::timeout, this, &PushFeed::watch);
    if (!config.push)
        return;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        if (!config.hasProfile(role) || config.profile(role).dialect != Dialect::PostgreSql)
            continue;
        Entry *shared = nullptr; // one listener per database: a NOTIFY reaches every session of it
        for (Entry &e : m_listeners)
            if (config.profile(e.roles.first()).sameDatabase(config.profile(role)))
                shared = &e;
        if (shared) {
            shared->roles << role;
            continue;
        }
        Entry e;
        e.roles << role;
        m_listeners << e;
    }
    // Each listener's settings, now that every store sharing its database is known.
    for (Entry &e : m_listeners) {
        PushListener::Settings s;
        const bool direct = config.listenProfiles.contains(int(e.roles.first()));
        s.profile = direct ? config.listenProfiles.value(int(e.roles.first())) : config.profile(e.roles.first());
        s.direct = direct;
        s.heartbeatMs = heartbeatMs > 0 ? heartbeatMs : config.pushHeartbeatMs;
        s.roles = e.roles;
        QStringList names;
        for (DbRole r : std::as_const(e.roles)) {
            s.tables << pushTable(config, r).first;
            names << roleName(r);
        }
        e.listener = new PushListener(s);
        e.status.state = PushState::Connecting;
        e.status.where = QStringLiteral("%1 on %2").arg(names.join(QStringLiteral(", ")), s.profile.displayUrl());
    }
}

PushFeed::~PushFeed()
{
    stop();
    for (Entry &e : m_listeners)
        delete e.listener;
}

void PushFeed::start()
{
    if (m_started)
        return;
    m_started = true;
    for (int i = 0; i < m_listeners.size(); ++i) {
        Entry &e = m_listeners[i];
        e.thread = new QThread;
        e.thread->setObjectName(QStringLiteral("push-listener"));
        e.listener->moveToThread(e.thread);
        QSet<int> roles;
        for (DbRole r : std::as_const(e.roles))
            roles.insert(int(r));
        connect(e.listener, &PushListener::state, this, [this, i](int state, const QString &why) { onState(i, state, why); });
        connect(e.listener, &PushListener::hint, this, [this](int role) {
            ++m_hints;
            if (m_coalesce.isActive()) {
                m_pending.insert(role);
                return;
            }
            m_coalesce.start();
            emit changed(QSet<int>{role});
        });
        connect(e.listener, &PushListener::resynced, this, [this, roles] { emit resynced(roles); });
        connect(e.listener, &PushListener::lost, this, [this](int beats) {
            ++m_losses;
            m_worstBeatsMissed = std::max(m_worstBeatsMissed, beats);
        });
        e.thread->start();
        QMetaObject::invokeMethod(e.listener, &PushListener::begin, Qt::QueuedConnection);
        m_watch.setInterval(e.listener->heartbeatMs());
    }
    if (!m_listeners.isEmpty())
        m_watch.start();
}

void PushFeed::watch()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int i = 0; i < m_listeners.size(); ++i) {
        const Entry &e = m_listeners[i];
        const qint64 heard = e.listener->lastHeardMs(), limit = 3LL * e.listener->heartbeatMs();
        if (e.status.state == PushState::Live && heard > 0 && now - heard > limit)
            onState(i, int(PushState::Lost),
                    QStringLiteral("no heartbeat heard for %1 ms: the listener's connection does not answer").arg(now - heard));
        else if (e.status.state == PushState::Lost && heard > 0 && now - heard <= limit)
            onState(i, int(PushState::Live), {}); // it answered again (a real loss reconnects and says so itself)
    }
}

void PushFeed::stop()
{
    if (!m_started)
        return;
    m_started = false;
    m_watch.stop();
    for (Entry &e : m_listeners) {
        if (!e.thread)
            continue;
        QMetaObject::invokeMethod(e.listener, &PushListener::end, Qt::BlockingQueuedConnection);
        e.thread->quit();
        e.thread->wait();
        delete e.thread;
        e.thread = nullptr;
        e.listener->disconnect(this);
    }
}

void PushFeed::onState(int index, int state, const QString &why)
{
    PushStatus &s = m_listeners[index].status;
    const auto next = PushState(state);
    if (next == PushState::Connecting && (s.state == PushState::Lost || s.state == PushState::Unavailable))
        return; // reconnecting: the failure stands until the heartbeat comes back
    const bool failed = next == PushState::Lost || next == PushState::Unavailable;
    if (failed && !(s.state == PushState::Lost || s.state == PushState::Unavailable))
        s.sinceUtc = nowUtc();
    if (!failed)
        s.sinceUtc.clear();
    s.state = next;
    s.why = why;
    emit stateChanged();
}

QList<PushStatus> PushFeed::statuses() const
{
    QList<PushStatus> out;
    for (const Entry &e : m_listeners)
        out << e.status;
    return out;
}

PushState PushFeed::state() const
{
    if (m_listeners.isEmpty())
        return PushState::Off;
    auto rank = [](PushState s) {
        switch (s) {
        case PushState::Lost: return 4;
        case PushState::Unavailable: return 3;
        case PushState::Connecting: return 2;
        case PushState::Live: return 1;
        case PushState::Off: break;
        }
        return 0;
    };
    PushState worst = PushState::Live;
    for (const Entry &e : m_listeners)
        if (rank(e.status.state) > rank(worst))
            worst = e.status.state;
    return worst;
}

QString PushFeed::statusText() const
{
    for (PushState wanted : {PushState::Lost, PushState::Unavailable, PushState::Connecting}) {
        for (const Entry &e : m_listeners) {
            const PushStatus &s = e.status;
            if (s.state != wanted)
                continue;
            const QString at = utcToSecond(s.sinceUtc).mid(11, 8);
            switch (wanted) {
            case PushState::Lost:
                return QStringLiteral("push lost since %1 UTC (%2): reconnecting").arg(at, s.why);
            case PushState::Unavailable:
                return QStringLiteral("push unavailable (%1): polling only").arg(s.why);
            default:
                return QStringLiteral("push connecting");
            }
        }
    }
    return m_listeners.isEmpty() ? QString() : QStringLiteral("push live");
}

} // namespace triage
