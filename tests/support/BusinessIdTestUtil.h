#pragma once

#include "BusinessId.h"

#include <QTest>

#include <optional>

namespace triage {

/// QCOMPARE prints a BusinessId as its text.
inline char *toString(const BusinessId &id)
{
    return QTest::toString(id.text());
}

} // namespace triage

/// A ticket id of an integer column (tests' shorthand): BusinessId::fromInteger(n).
inline triage::BusinessId bid(qint64 n)
{
    return triage::BusinessId::fromInteger(n);
}

/// The same, optional (for CanonicalTicket::id and friends).
inline std::optional<triage::BusinessId> optBid(qint64 n)
{
    return triage::BusinessId::fromInteger(n);
}
