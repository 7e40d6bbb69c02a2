#pragma once
// Internal to the bundle's reader (Bundle.cpp) and its two-step form for the offline viewer
// (BundleOpen.cpp): not part of the bundle's contract (Bundle.h).

#include "Bundle.h"
#include "JsonRead.h"

namespace triage::bundle_parts {

/// What readBundleDocument() reads: the whole bundle, or every member but "events" and
/// "keys" (the header the writer puts before them).
enum class Parts { Header, All };

/// readBundleJson()'s reader (same checks, same messages, in the same order); with
/// Parts::Header the events and keys are neither read nor required and `*eventCount` (when
/// given) is the file's "event_count".
std::optional<IncidentBundle> readBundleDocument(const QByteArray &bytes, Parts parts, QString *error, qint64 *eventCount);

/// An event from its canonical array (DESIGN.md §7 "Bundles"), read at `path` (a wrong shape
/// or value is `in`'s error).
WindowEvent readEvent(const JsonIn &in, const QJsonValue &value, const QString &path);

/// `value` as JSON text indented by `depth` levels of four spaces past its first line (a
/// scalar: its compact text), as the writer puts a member's value.
QByteArray valueText(const QJsonValue &value, int depth);

} // namespace triage::bundle_parts
