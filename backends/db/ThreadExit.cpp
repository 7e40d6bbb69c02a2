#include "ThreadExit.h"

#include <openssl/crypto.h>

namespace triage {

void releaseThreadLibraryState()
{
    // Documented for exactly this: "frees resources associated with the current thread;
    // typically called automatically in pthread environments" (by a destructor that, for a
    // detached thread, may run while the main thread is in OPENSSL_cleanup()).
    OPENSSL_thread_stop();
}

} // namespace triage
