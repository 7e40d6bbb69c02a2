#pragma once

namespace triage {

/// Makes Qt SQL's driver registry ready on the calling thread, once per process; every
/// later call returns at once, and concurrent first callers wait for the first one.
/// DbSession's constructor calls it before it adds a connection; call it yourself before
/// any other first use of QSqlDatabase that may run on several threads at once.
///
/// Why (Qt 6.4.2, docs/QT-PITFALLS.md "Qt SQL"): the first use of a driver registers
/// Qt SQL's clean-up routine (qAddPostRoutine) behind an unsynchronised flag. When the
/// first connections of a process are added on several threads at once (a Workspace's
/// three DbWorkers do exactly that), two of them can both see the flag unset and register
/// the routine twice. At exit ~QCoreApplication runs it twice; the second run finds the
/// flag reset by the first, registers itself again, and qt_call_post_routines() never
/// ends: triagectl hung after printing its result, about once in 600 runs.
void registerSqlDriversOnce();

} // namespace triage
