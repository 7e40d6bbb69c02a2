#include "Workspace.h"
#include <QCoreApplication>
#include <cstdio>
using namespace triage;
int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QString err = DemoWorkspace::ensure(argc > 1);
  if (!err.isEmpty()) { printf("ensure: %s\n", qPrintable(err)); return 2; }
  Workspace ws(DemoWorkspace::config());
  for (auto k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded, QueueKind::Escalated}) {
    QueueRequest req; req.kind = k;
    auto c = ws.countQueue(req).result();
    if (!c.ok()) { printf("count err %s\n", qPrintable(c.error->message)); continue; }
    QueueCursor cur; int total = 0; QString first;
    while (true) { auto p = ws.fetchQueuePage(req, cur, 7).result(); if (!p.ok()) { printf("page err %s\n", qPrintable(p.error->message)); break; }
      if (first.isEmpty() && !p->rows.isEmpty()) first = p->rows[0].idemKey + " " + p->rows[0].status + " " + p->rows[0].updatedAt + " age=" + QString::number(p->rows[0].ageSeconds);
      total += p->rows.size(); cur = p->next; if (p->atEnd) break; }
    printf("%s count=%lld paged=%d first=%s\n", qPrintable(queueName(k)), *c, total, qPrintable(first));
  }
  QueueRequest req; req.kind = QueueKind::Unknown; req.filter.tenant = "acme";
  printf("acme unknown=%lld\n", *ws.countQueue(req).result());
  req.filter.tenant = "zürich"; printf("zurich unknown=%lld\n", *ws.countQueue(req).result());
  auto p = ws.fetchQueuePage({QueueKind::Unknown, {}, false}, {}, 1).result();
  auto d = ws.loadKeyDetail(p->rows[0].idemKey).result();
  printf("detail %s rec=%d tickets=%d attempts=%d timeline=%d errors=%d\n", qPrintable(d.idemKey), d.record.has_value(), (int)d.tickets.size(), (int)d.attempts.size(), (int)d.timeline.size(), (int)d.errors.size());
  for (auto& e : d.timeline) printf("  %s %s %s\n", qPrintable(e.time), qPrintable(e.source), qPrintable(e.summary));
  for (auto& w : d.warnings) printf("  W %s\n", qPrintable(w));
  return 0;
}
