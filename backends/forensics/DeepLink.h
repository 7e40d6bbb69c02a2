#pragma once
// Deep links (DESIGN.md §7 "Links"): a key or a window, as text that means the same thing
// months later. Pure: no database, no widgets.

#include "Window.h"

#include <QString>

#include <optional>
#include <utility>

namespace triage {

/// One parsed link: a key's detail (`triage://key/<key>`) or a window with its filters and
/// an optional selected event (`triage://window?from=…&to=…&…&event=<kind>:<id>`).
struct DeepLink {
    enum class Kind { Key, Window };
    Kind kind = Kind::Key;
    QString key;        ///< Kind::Key: the idempotency key exactly (any characters)
    WindowQuery query;  ///< Kind::Window: from, to (UTC µs) and the filters; lookbackS stays the default
    /// Kind::Window: the event to select (its kind and row id as text), when given.
    std::optional<std::pair<EventKind, QString>> event;
};

/// `triage://key/<key>`: the key percent-encoded as one component (QUrl::toPercentEncoding:
/// everything but A–Z a–z 0–9 - . _ ~ is encoded, so `/`, `%`, `#`, `?`, `&`, `+`, spaces and
/// non-ASCII UTF-8 bytes all survive).
QString keyLink(const QString &key);

/// `triage://window?from=<ISO UTC>&to=<ISO UTC>` followed by the filters that are set, in the
/// order biz_type, tenant, key, task, stores, kinds, statuses, and `event=<kind>:<id>` when
/// `event` is set. Times are formatUtcMicros() text (always absolute UTC, microseconds);
/// every value percent-encoded as one component; the lists' elements are encoded one by one
/// and joined by "," (so a status holding "," survives). The lookback is not part of a link.
QString windowLink(const WindowQuery &query, const std::optional<std::pair<EventKind, QString>> &event = std::nullopt);

/// Prints `link` (keyLink() or windowLink()).
QString printDeepLink(const DeepLink &link);

/// Parses a link printed by printDeepLink() (surrounding spaces ignored). nullopt with
/// `*error` set to one line for operators:
///   "not a triage link: \"…\" (expected triage://key/<key> or triage://window?from=…&to=…)",
///   "unknown triage link kind \"x\" (expected triage://key/<key> or triage://window?…)",
///   "the key link names no key", "a key link takes no query or fragment (encode ? as %3F and # as %23)",
///   "the window link has a path (expected triage://window?from=…&to=…)", "the link has a fragment (encode # as %23)",
///   "the window link has no from", "… has no to", "from: not an ISO time: \"x\"",
///   "the window's start must be before its end", "unknown link parameter \"x\" (known: from, to, biz_type,
///   tenant, key, task, stores, kinds, statuses, event)", "link parameter \"x\" given twice",
///   "stores: unknown store \"x\"", "kinds: unknown kind \"x\"", "event: give <kind>:<id>",
///   "event: unknown kind \"x\"", "<parameter>: not percent-encoded UTF-8".
std::optional<DeepLink> parseDeepLink(const QString &text, QString *error);

} // namespace triage
