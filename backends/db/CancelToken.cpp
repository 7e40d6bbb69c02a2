#include "CancelToken.h"

#include <QAtomicInteger>

namespace triage {

namespace {

QAtomicInteger<quint64> s_tokenIds;

thread_local CancelToken t_currentToken;

} // namespace

CancelToken CancelToken::create()
{
    CancelToken t;
    t.m_state = std::make_shared<State>();
    t.m_state->id = s_tokenIds.fetchAndAddRelaxed(1) + 1;
    return t;
}

CancelToken CancelToken::current()
{
    return t_currentToken;
}

CancelScope::CancelScope(const CancelToken &token) : m_previous(t_currentToken)
{
    t_currentToken = token;
}

CancelScope::~CancelScope()
{
    t_currentToken = m_previous;
}

} // namespace triage
