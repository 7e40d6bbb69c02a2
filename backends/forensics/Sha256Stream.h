#pragma once
// SHA-256 of a long byte stream fed in pieces: the bundle's events hash (DESIGN.md §7
// "Bundles"), which covers tens of megabytes.

#include <QByteArrayView>
#include <QString>

#include <memory>

namespace triage {

/// SHA-256 over bytes fed in pieces, computed by OpenSSL's libcrypto (package libssl-dev,
/// already linked for libpq): it uses the CPU's SHA extensions where present, about 1.1 GB/s
/// on the CI machine against 160 MB/s for QCryptographicHash, which Qt 6.4 computes in plain
/// C. The digest is the same SHA-256 (FIPS 180-4) QCryptographicHash::Sha256 gives; should
/// libcrypto fail to set up its context (out of memory, a provider configuration without
/// SHA-256), the stream falls back to QCryptographicHash, so it never fails.
///
/// Use one stream on one thread. Its destructor frees OpenSSL's state for that thread
/// (releaseThreadLibraryState(), ThreadExit.h): pool threads end detached, and state left
/// behind raced the process's exit.
class Sha256Stream
{
public:
    Sha256Stream();
    ~Sha256Stream();
    Sha256Stream(const Sha256Stream &) = delete;
    Sha256Stream &operator=(const Sha256Stream &) = delete;

    /// Feeds `bytes` (any length, empty included).
    void addData(QByteArrayView bytes);
    /// The digest of every byte fed, as 64 lower-case hex digits. Call once, last.
    QString hexResult();

private:
    struct State;
    std::unique_ptr<State> m;
};

} // namespace triage
