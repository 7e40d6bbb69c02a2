#pragma once
// Redacting a bundle while it is being read (DESIGN.md §7 "Redaction"): the exporter hands each
// batch of key details to the redactor as it arrives, so the keys are redacted on the pool's
// threads while the next batch is still being read; the events, pins and notes follow once
// every key is in. redactBundle() (Bundle.h) is the same in one call.

#include "Bundle.h"

#include <memory>

namespace triage {

/// Applies redaction rules to a bundle in steps, with the same result as redactBundle() on the
/// finished bundle. Not thread-safe itself: one thread calls redactKeys() and finish().
class BundleRedactor {
public:
    explicit BundleRedactor(const RedactionRules &rules);
    ~BundleRedactor(); ///< waits for the keys still being redacted
    BundleRedactor(const BundleRedactor &) = delete;
    BundleRedactor &operator=(const BundleRedactor &) = delete;

    /// Starts redacting `*keys` (the next keys of the bundle, in bundle order) on the global
    /// thread pool and returns at once. `*keys` must stay alive and unchanged (not resized,
    /// copied from or moved) until waitForKeys() or finish() returns.
    void redactKeys(QVector<KeyDetail> *keys);
    /// Waits until every key handed to redactKeys() is redacted.
    void waitForKeys();
    /// Redacts the rest of `bundle` (the events, the pins' and the incident's notes, with the
    /// values found in the keys) and fills bundle->redactions and bundle->redactionRules.
    /// bundle->keys must hold exactly the keys handed to redactKeys(), in the same order.
    void finish(IncidentBundle *bundle);

private:
    struct State;
    std::unique_ptr<State> m;
};

} // namespace triage
