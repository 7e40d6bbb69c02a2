#pragma once

#include <QMutex>
#include <QString>

#include <memory>

class QSqlDriver;
struct pg_cancel;

namespace triage {

/// libpq's protocol-level cancel request for one open PostgreSQL connection
/// (`PQgetCancel()` / `PQcancel()`): it opens a fresh socket to the address the connection
/// uses and sends the connection's cancel key, so it reaches exactly the session that runs
/// the statement — PgBouncer routes it to the server connection serving that client right
/// now, and drops it when none does. This replaces `pg_cancel_backend(pid)` with a pid read
/// at open, which behind a pooler may name another client's backend (DESIGN.md §4 "Poolers").
/// Created on the thread that owns the connection; send() may then be called from any
/// thread (libpq documents PQcancel() as thread-safe). Not copyable; share it by shared_ptr.
class PgCancelHandle {
public:
    /// The handle for `driver`'s open QPSQL connection (its `handle()` is a `PGconn*`), or
    /// null when the driver is not QPSQL or not open. Call on the connection's own thread.
    static std::shared_ptr<PgCancelHandle> fromDriver(const QSqlDriver *driver);
    ~PgCancelHandle();
    PgCancelHandle(const PgCancelHandle &) = delete;
    PgCancelHandle &operator=(const PgCancelHandle &) = delete;

    /// Sends the cancel request and waits for the server (or pooler) to take it; true when
    /// it was delivered. Delivery does not mean a statement was running: the server cancels
    /// whatever that session runs when the request arrives, or nothing. On failure sets
    /// `*error` to libpq's reason.
    bool send(QString *error) const;

private:
    explicit PgCancelHandle(pg_cancel *cancel) : m_cancel(cancel) {}
    pg_cancel *m_cancel;
};

/// A slot holding the current connection's PgCancelHandle, set and cleared by the worker
/// thread, read by cancel tasks on other threads. Thread-safe.
class PgCancelSlot {
public:
    void set(std::shared_ptr<PgCancelHandle> handle)
    {
        QMutexLocker lock(&m_mutex);
        m_handle = std::move(handle);
    }
    std::shared_ptr<PgCancelHandle> get() const
    {
        QMutexLocker lock(&m_mutex);
        return m_handle;
    }

private:
    mutable QMutex m_mutex;
    std::shared_ptr<PgCancelHandle> m_handle;
};

} // namespace triage
