#include "Sha256Stream.h"

#include "ThreadExit.h"

#include <QCryptographicHash>

#include <openssl/evp.h>

#include <optional>

namespace triage {

struct Sha256Stream::State {
    EVP_MD_CTX *ctx = nullptr;                  ///< libcrypto's, when it set up
    std::optional<QCryptographicHash> fallback; ///< otherwise
};

Sha256Stream::Sha256Stream()
    : m(std::make_unique<State>())
{
    m->ctx = EVP_MD_CTX_new();
    if (m->ctx && EVP_DigestInit_ex(m->ctx, EVP_sha256(), nullptr) == 1)
        return;
    EVP_MD_CTX_free(m->ctx);
    m->ctx = nullptr;
    m->fallback.emplace(QCryptographicHash::Sha256);
}

Sha256Stream::~Sha256Stream()
{
    EVP_MD_CTX_free(m->ctx);
    releaseThreadLibraryState();
}

void Sha256Stream::addData(QByteArrayView bytes)
{
    if (m->fallback) {
        m->fallback->addData(bytes);
        return;
    }
    if (EVP_DigestUpdate(m->ctx, bytes.data(), size_t(bytes.size())) != 1)
        qFatal("Sha256Stream: EVP_DigestUpdate failed"); // documented to fail only for a context not set up
}

QString Sha256Stream::hexResult()
{
    if (m->fallback)
        return QString::fromLatin1(m->fallback->result().toHex());
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(m->ctx, digest, &size) != 1 || size != 32)
        qFatal("Sha256Stream: EVP_DigestFinal_ex failed");
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(digest), int(size)).toHex());
}

} // namespace triage
