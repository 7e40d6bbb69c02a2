#pragma once

#include "KeyDetailTypes.h"

#include <QByteArray>

namespace triage::key_json {

/// The compact JSON line of keyDetailFull(detail): byte for byte what
/// QJsonDocument(keyDetailFull(detail)).toJson(QJsonDocument::Compact) writes (members in
/// QJsonObject's sorted order), with the attempts and the timeline, the bulk of a key,
/// written directly by appendJsonString() instead of a QJsonObject per row (DESIGN.md §7
/// "Bundles": the bundle writes one such line per key; an export holds 100,000 attempts).
/// tests/forensics/tst_bundle_export checks the equality on the three backends' odd rows and
/// on hand-made edge cases (NULLs, lone surrogates, text and numeric ids, a failed store).
QByteArray keyDetailFullLine(const KeyDetail &detail);

} // namespace triage::key_json
