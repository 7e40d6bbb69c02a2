#include "UpstreamCheck.h"
#include "FutureChain.h"

#include "Audit.h"
#include "ConsoleSchema.h"
#include "RecordStatus.h"
#include "Workspace.h"
#include "KeyDetail.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonArray>
#include <QMutex>
#include <QRegularExpression>
#include <QUuid>

namespace triage {

QByteArray UpstreamCheck::toJson() const
{
    // Splice the two members' own JSON (they keep raw texts as strings) without re-parsing numbers.
    QByteArray out = "{\"idem_key\":";
    out += QJsonDocument(QJsonObject{{QStringLiteral("k"), detail.idemKey}}).toJson(QJsonDocument::Compact).mid(5).chopped(1);
    out += ",\"verdict\":" + verdict.toJson();
    out += ",\"evidence\":" + evidence.toJson();
    out += ",\"audit_id\":" + (auditId ? QByteArray::number(auditId) : QByteArray("null"));
    out += ",\"record_note\":";
    out += recordNote.isEmpty() ? QByteArray("null")
                                : QJsonDocument(QJsonObject{{QStringLiteral("k"), recordNote}}).toJson(QJsonDocument::Compact).mid(5).chopped(1);
    out += '}';
    return out;
}

AuditEntry upstreamAuditEntry(const WorkspaceConfig &config, const UpstreamCheck &check)
{
    const QString who = !check.operatorName.isEmpty() ? check.operatorName
        : config.operatorName.isEmpty()                 ? osUserName()
                                                        : config.operatorName;
    AuditEntry a = auditStamp(audit_action::QueryUpstream, check.detail.idemKey, who, auditDbUser(config.idempotency));
    if (check.detail.record) {
        QJsonObject from;
        from[QStringLiteral("status")] = check.detail.record->statusText;
        from[QStringLiteral("updated_at")] = check.detail.record->updatedAt;
        a.fromState = QString::fromUtf8(QJsonDocument(from).toJson(QJsonDocument::Compact));
    }
    a.reason = QStringLiteral("upstream %1 → suggested %2 (§6 row %3)")
                   .arg(upstreamClassName(check.evidence.classification), verdictName(check.verdict.kind))
                   .arg(check.verdict.row);
    // Bounded (kAuditRowMaxBytes): the body, the found objects and the snapshot each get a
    // quarter; the full body stays with the upstream, the attempts in the intent log.
    constexpr qsizetype kTextPart = kAuditRowMaxBytes / 4;
    a.evidence = QString::fromUtf8("{\"evidence\":" + check.evidence.toJson(kTextPart) + ",\"verdict\":"
                                   + check.verdict.toJson(kTextPart) + "}");
    a.outcome = QStringLiteral("recorded");
    a.detail = check.evidence.message;
    return a;
}

QFuture<UpstreamCheck> recordUpstreamCheck(Workspace &ws, UpstreamCheck check)
{
    if (ws.config().readOnly) {
        check.recordNote = QStringLiteral("read-only mode: the query was not recorded in triage_audit");
        return QtFuture::makeReadyFuture(std::move(check));
    }
    const AuditEntry a = upstreamAuditEntry(ws.config(), check);
    return continueWith(ws.worker(DbRole::Idempotency)
        .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never), ws.mergePool(), [check](Outcome<qint64> out) mutable {
            if (out.ok()) {
                check.auditId = *out;
            } else {
                check.auditId = 0;
                check.recordNote = QStringLiteral("the query was not recorded: %1").arg(out.error->message);
            }
            return check;
        });
}

QStringList UpstreamBulkCheckReport::unrecordedKeys() const
{
    QStringList out = answeredUnrecordedKeys();
    if (!auditError)
        return out;
    for (int i = 0; i < checks.size(); ++i)
        if (!answered.value(i))
            out.append(checks.at(i).detail.idemKey);
    return out;
}

QStringList UpstreamBulkCheckReport::answeredUnrecordedKeys() const
{
    QStringList out;
    if (!auditError)
        return out;
    for (int i = 0; i < checks.size(); ++i)
        if (answered.value(i) && checks.at(i).auditId == 0)
            out.append(checks.at(i).detail.idemKey);
    return out;
}

namespace {

std::optional<UpstreamClass> classFromName(const QString &name)
{
    for (UpstreamClass c : {UpstreamClass::Found, UpstreamClass::NotFound, UpstreamClass::Ambiguous, UpstreamClass::Unusable,
                            UpstreamClass::NotConfigured})
        if (upstreamClassName(c) == name)
            return c;
    return std::nullopt;
}

UnusableKind kindFromName(const QString &name)
{
    for (int k = int(UnusableKind::None); k <= int(UnusableKind::Cancelled); ++k)
        if (unusableKindName(UnusableKind(k)) == name)
            return UnusableKind(k);
    return UnusableKind::None;
}

HttpHeaderList headersFromJson(const QJsonValue &v)
{
    HttpHeaderList out;
    for (const QJsonValue &h : v.toArray())
        out.append({h.toArray().at(0).toString().toLatin1(), h.toArray().at(1).toString().toUtf8()});
    return out;
}

/// A recorded text: the string itself, or a cut object's prefix (and a warning).
QString recordedText(const QJsonValue &v, const QString &what, QStringList *warnings, bool *cut = nullptr)
{
    if (cut)
        *cut = false;
    if (!v.isObject())
        return v.toString();
    const QJsonObject o = v.toObject();
    if (cut)
        *cut = true;
    warnings->append(QStringLiteral("%1 was cut for the audit trail: %2 bytes in full, SHA-256 %3; shown: its first %4 characters")
                         .arg(what)
                         .arg(qint64(o.value(QStringLiteral("bytes")).toDouble()))
                         .arg(o.value(QStringLiteral("sha256")).toString())
                         .arg(o.value(QStringLiteral("prefix")).toString().size()));
    return o.value(QStringLiteral("prefix")).toString();
}

} // namespace

std::optional<UpstreamCheck> latestRecordedCheck(const KeyDetail &detail)
{
    const AuditEntry *row = nullptr;
    for (const AuditEntry &a : detail.audit)
        if (a.action == QLatin1String("query_upstream") && (!row || a.id > row->id))
            row = &a;
    if (!row)
        return std::nullopt;
    UpstreamCheck c;
    c.detail = detail;
    c.auditId = row->id;
    c.recordedAt = row->at;
    c.recordedBy = row->operatorName;
    UpstreamEvidence &e = c.evidence;
    e.idemKey = detail.idemKey;
    e.message = row->detail;
    const QJsonObject all = QJsonDocument::fromJson(row->evidence.toUtf8()).object();
    const QJsonObject ev = all.value(QStringLiteral("evidence")).toObject();
    const QJsonObject vd = all.value(QStringLiteral("verdict")).toObject();
    if (ev.isEmpty()) {
        // The whole evidence column was cut (or is not ours): what the row's reason says.
        static const QRegularExpression re(QStringLiteral("^upstream (\\S+) → suggested (\\S+) \\(§6 row (\\d+)\\)"));
        const auto m = re.match(row->reason);
        e.classification = classFromName(m.captured(1)).value_or(UpstreamClass::Unusable);
        for (VerdictKind k : {VerdictKind::Wait, VerdictKind::Duplicate, VerdictKind::Unknown, VerdictKind::Success, VerdictKind::Failed})
            if (verdictName(k) == m.captured(2))
                c.verdict.kind = k;
        c.verdict.row = m.captured(3).toInt();
        c.verdict.reason = row->reason;
        recordedText(QJsonDocument::fromJson(row->evidence.toUtf8()).object(), QStringLiteral("the recorded evidence"), &e.warnings);
        return c;
    }
    e.bizType = ev.value(QStringLiteral("biz_type")).toString();
    e.classification = classFromName(ev.value(QStringLiteral("classification")).toString()).value_or(UpstreamClass::Unusable);
    e.kind = kindFromName(ev.value(QStringLiteral("kind")).toString());
    e.message = ev.value(QStringLiteral("message")).toString();
    e.sent = ev.value(QStringLiteral("sent")).toBool();
    const QJsonObject req = ev.value(QStringLiteral("request")).toObject();
    e.request.method = req.value(QStringLiteral("method")).toString().toLatin1();
    e.request.url = req.value(QStringLiteral("url")).toString();
    e.request.headers = headersFromJson(req.value(QStringLiteral("headers")));
    e.request.sentAt = req.value(QStringLiteral("sent_at")).toString();
    if (ev.value(QStringLiteral("http_status")).isDouble())
        e.httpStatus = ev.value(QStringLiteral("http_status")).toInt();
    e.reasonPhrase = ev.value(QStringLiteral("reason_phrase")).toString().toLatin1();
    e.responseHeaders = headersFromJson(ev.value(QStringLiteral("response_headers")));
    e.contentType = ev.value(QStringLiteral("content_type")).toString();
    for (const QJsonValue &w : ev.value(QStringLiteral("warnings")).toArray())
        e.warnings.append(w.toString());
    if (ev.contains(QStringLiteral("raw_body_base64"))) {
        const QJsonValue b = ev.value(QStringLiteral("raw_body_base64"));
        e.rawBody = QByteArray::fromBase64(b.isObject() ? b.toObject().value(QStringLiteral("prefix_base64")).toString().toLatin1()
                                                        : b.toString().toLatin1());
        if (b.isObject())
            recordedText(b, QStringLiteral("the response body"), &e.warnings);
    } else {
        e.rawBody = recordedText(ev.value(QStringLiteral("raw_body")), QStringLiteral("the response body"), &e.warnings).toUtf8();
    }
    e.bodyPreview = QString::fromUtf8(e.rawBody.left(800)).left(200);
    e.elapsedMs = qint64(ev.value(QStringLiteral("elapsed_ms")).toDouble(-1));
    e.networkError = ev.value(QStringLiteral("network_error")).toString();
    e.foundObjectsExact = ev.value(QStringLiteral("found_objects_exact")).toBool(true);
    for (const QJsonValue &f : ev.value(QStringLiteral("found_objects")).toArray()) {
        bool cut = false;
        const QString text = recordedText(f, QStringLiteral("a found object"), &e.warnings, &cut);
        e.foundObjects.append(text);
        e.foundObjectsExact = e.foundObjectsExact && !cut;
    }

    Verdict &v = c.verdict;
    for (VerdictKind k : {VerdictKind::Wait, VerdictKind::Duplicate, VerdictKind::Unknown, VerdictKind::Success, VerdictKind::Failed})
        if (verdictName(k) == vd.value(QStringLiteral("verdict")).toString())
            v.kind = k;
    v.row = vd.value(QStringLiteral("row")).toInt();
    v.why = vd.value(QStringLiteral("why")).toString();
    for (const QJsonValue &f : vd.value(QStringLiteral("facts")).toArray())
        v.facts.append(f.toString());
    v.reason = vd.value(QStringLiteral("reason")).toString();
    v.snapshotSource = vd.value(QStringLiteral("snapshot_source")).toString();
    const QJsonValue snap = vd.value(QStringLiteral("snapshot"));
    if (snap.isString()) {
        v.snapshot = snap.toString();
    } else if (snap.isObject()) {
        QStringList notes;
        recordedText(snap, QStringLiteral("the suggested snapshot"), &notes);
        v.facts.append(notes.first());
    }
    // Written by Verdict::toJson() (BusinessId::toJson()): an integer id as a JSON number,
    // which Qt 6 parses exactly within qint64 (toInteger(), never through a double), any
    // other id as a string.
    if (const QJsonValue cid = vd.value(QStringLiteral("canonical_ticket_id")); cid.isString())
        v.canonicalTicketId = BusinessId(cid.toString());
    else if (cid.isDouble() && cid.toInteger(-1) == cid.toDouble(-2))
        v.canonicalTicketId = BusinessId::fromInteger(cid.toInteger());
    return c;
}

UpstreamBulkCheck::~UpstreamBulkCheck()
{
    if (m_run)
        m_run->cancel();
}

namespace {

/// What the audit writes of one bulk check share across the network and worker threads.
struct BulkCheckState {
    QMutex mutex;
    QVector<UpstreamCheck> checks;
    QVector<bool> answered;
    std::optional<DbError> auditError;
};

} // namespace

std::shared_ptr<UpstreamBulkCheck> checkUpstreamMany(Workspace &ws, UpstreamClient &client, QVector<KeyDetail> details,
                                                     UpstreamBulkOptions options, UpstreamBulkRun::PauseHook onPause,
                                                     const QString &operatorName)
{
    std::shared_ptr<UpstreamBulkCheck> bulk(new UpstreamBulkCheck, [](UpstreamBulkCheck *b) { b->deleteLater(); });
    auto state = std::make_shared<BulkCheckState>();
    QVector<UpstreamQuery> queries;
    for (const KeyDetail &d : std::as_const(details)) {
        queries << makeUpstreamQuery(ws.config(), d);
        UpstreamCheck c;
        c.detail = d;
        c.operatorName = operatorName;
        state->checks << c;
        state->answered << false;
    }
    Workspace *w = &ws;
    std::weak_ptr<UpstreamBulkCheck> weak = bulk;
    options.keep = [w, state, weak](int index, const UpstreamEvidence &evidence) -> QFuture<bool> {
        UpstreamCheck check;
        {
            QMutexLocker lock(&state->mutex);
            state->answered[index] = true;
            state->checks[index].evidence = evidence;
            check = state->checks[index];
            if (state->auditError) {
                check.recordNote = QStringLiteral("not recorded: an earlier audit write failed (%1)").arg(state->auditError->message);
                state->checks[index].recordNote = check.recordNote;
                return QtFuture::makeReadyFuture(false);
            }
        }
        check.verdict = suggestVerdict(verdictInputFrom(check.detail, &check.evidence));
        auto finish = [state, weak, index](UpstreamCheck c, const std::optional<DbError> &error) {
            {
                QMutexLocker lock(&state->mutex);
                if (error && !state->auditError)
                    state->auditError = error;
                state->checks[index] = c;
            }
            if (auto b = weak.lock())
                emit b->checked(index, c);
            return !error;
        };
        if (w->config().readOnly) {
            check.recordNote = QStringLiteral("read-only mode: the query was not recorded in triage_audit");
            return QtFuture::makeReadyFuture(finish(check, std::nullopt));
        }
        const AuditEntry a = upstreamAuditEntry(w->config(), check);
        return continueWith(w->worker(DbRole::Idempotency)
            .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never), w->mergePool(), [check, finish](const Outcome<qint64> &out) mutable {
                if (!out.ok()) {
                    check.recordNote = QStringLiteral("not recorded: %1").arg(out.error->message);
                    return finish(check, out.error);
                }
                check.auditId = *out;
                return finish(check, std::nullopt);
            });
    };
    bulk->m_run = client.queryMany(queries, options, std::move(onPause));
    bulk->m_report = continueWith(bulk->m_run->report(), valueChainPool(), [state](const UpstreamBulkReport &run) {
        UpstreamBulkCheckReport r;
        r.run = run;
        QMutexLocker lock(&state->mutex);
        r.checks = state->checks;
        r.answered = state->answered;
        r.auditError = state->auditError;
        for (int i = 0; i < r.checks.size() && i < run.results.size(); ++i)
            if (!r.answered.at(i))
                r.checks[i].evidence = run.results.at(i);
        return r;
    });
    return bulk;
}

QFuture<UpstreamCheck> checkUpstream(Workspace &ws, UpstreamClient &client, const QString &idemKey)
{
    Workspace *w = &ws;
    UpstreamClient *c = &client;
    QThreadPool *pool = ws.mergePool();
    // Every answer is recorded in triage_audit: a console older than the idempotency
    // database's console schema must refuse before the upstream hears of it (DESIGN.md §10).
    QFuture<Outcome<Done>> writable = ws.config().readOnly
        ? QtFuture::makeReadyFuture(Outcome<Done>{Done{}, std::nullopt})
        : ws.worker(DbRole::Idempotency).run<Done>([](DbSession &s) {
              requireKnownConsoleSchema(s);
              return Done{};
          });
    return continueWith(continueWith(writable, pool, [w, idemKey, pool](const Outcome<Done> &ok) {
            return continueWith(loadKeyDetail(*w, idemKey, ReadFrom::Primary), pool, [ok](KeyDetail detail) {
                return std::make_pair(ok, std::move(detail));
            });
        }), pool, [w, c, pool](std::pair<Outcome<Done>, KeyDetail> loaded) {
                  UpstreamCheck check;
                  check.detail = std::move(loaded.second);
                  // Only the refusal stops the query; a store that cannot be read now is
                  // reported as before, by the audit write (recordNote).
                  if (!loaded.first.ok() && loaded.first.error->kind == DbError::Kind::Refused) {
                      const DbError &e = *loaded.first.error;
                      check.refusal = e;
                      check.evidence.sent = false;
                      check.evidence.classification = UpstreamClass::Unusable;
                      check.evidence.kind = UnusableKind::Cancelled;
                      check.evidence.message = QStringLiteral("not sent: %1").arg(e.message);
                      check.verdict = suggestVerdict(verdictInputFrom(check.detail, &check.evidence));
                      check.recordNote = QStringLiteral("not recorded: %1").arg(e.message);
                      return QtFuture::makeReadyFuture(std::move(check));
                  }
                  return continueWith(c->query(makeUpstreamQuery(w->config(), check.detail)), pool, [w, check](UpstreamEvidence evidence) mutable {
                                check.evidence = std::move(evidence);
                                check.verdict = suggestVerdict(verdictInputFrom(check.detail, &check.evidence));
                                return recordUpstreamCheck(*w, check);
                            });
              });
}


} // namespace triage
