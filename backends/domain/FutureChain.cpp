#include "FutureChain.h"

namespace triage {

namespace {
struct ValueChainPool
{
    ValueChainPool() { pool.setMaxThreadCount(64); }
    QThreadPool pool;
};
} // namespace

Q_GLOBAL_STATIC(ValueChainPool, g_valueChainPool)

QThreadPool *valueChainPool()
{
    return &g_valueChainPool()->pool;
}

} // namespace triage
