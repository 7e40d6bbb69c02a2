#pragma once

namespace triage {

/// Frees the per-thread state that the database client libraries keep on the calling thread
/// (OpenSSL 3: libpq uses it for SCRAM authentication as well as TLS, libmariadb for TLS
/// and its authentication plugins).
///
/// Call it as the last act of every thread that held a database connection, after the
/// connection is closed. Qt's threads are detached: QThread::wait() returns once the
/// thread's event loop has finished, before the thread's thread-specific-data destructors
/// run. OpenSSL's destructor then raced the process's exit handlers (OPENSSL_cleanup() frees
/// the lock it takes): triagectl crashed or hung after printing its result, about once in
/// a thousand runs under load ("double free or corruption", SIGSEGV in CRYPTO_THREAD_read_lock
/// called from __nptl_deallocate_tsd while the main thread ran OPENSSL_cleanup()). Freed
/// here, nothing is left for the destructor to do. Cheap; state is re-created on next use.
void releaseThreadLibraryState();

} // namespace triage
